package check

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/resilcheck/resilcheck/faults"
)

func quietHarness() *Harness { return &Harness{Journal: faults.NewJournal(), Seed: 1} }

// TestCase_tenant: declared tenants are handed out in turn; without them
// every call gets a fresh tenant.
func TestCase_tenant(t *testing.T) {
	ctx := context.Background()
	h := quietHarness()
	h.Conventions.Tenants = []string{"acme", "globex"}
	c := h.NewCase(ctx, "IK-13")
	if got := []string{c.Tenant(), c.Tenant(), c.Tenant()}; !slices.Equal(got, []string{"acme", "globex", "acme"}) {
		t.Errorf("declared tenants handed out as %v", got)
	}
	fresh := quietHarness().NewCase(ctx, "IK-13")
	if a, b := fresh.Tenant(), fresh.Tenant(); a == b || !strings.HasPrefix(a, "rc-IK-13-") {
		t.Errorf("fresh tenants %q and %q", a, b)
	}
}

// TestCase_effects counts through the probe over every (tenant, key) the
// case sent, as the front proxy journaled them: alone when there is no
// ledger, and as a second opinion that is recorded when it disagrees with
// the ledger. A probe that counts by key alone must not see one key once per
// tenant the case handed out.
func TestCase_effects(t *testing.T) {
	ctx := context.Background()
	sent := func(h *Harness, key, tenant string) {
		h.Journal.Record(faults.Entry{Side: "front", Headers: map[string]string{"Idempotency-Key": key, "X-Tenant-Id": tenant}})
	}
	counts := map[Values]int{{Key: "k1", Tenant: "acme"}: 1, {Key: "k1", Tenant: "globex"}: 1, {Key: "p", Tenant: "t"}: 2}
	probe := func(_ context.Context, v Values) (int, error) {
		return counts[Values{Key: v.Key, Tenant: v.Tenant}], nil
	}

	h := quietHarness()
	h.Probe, h.NoLedger = probe, true
	c := h.NewCase(ctx, "IK-13")
	c.handed = []string{"k1"}
	sent(h, "k1", "acme")
	sent(h, "k1", "globex")
	sent(h, "not-drawn", "acme") // a malformed key the case did not draw (IK-14)
	c.Track("t", "p")
	if ef := c.Effects(ctx); ef.Total != 4 || c.Disagreed() != "" {
		t.Errorf("probe alone: total %d (want 4), disagreement %q", ef.Total, c.Disagreed())
	}

	byKey := func(_ context.Context, v Values) (int, error) {
		return map[string]int{"k1": 1, "k2": 1}[v.Key], nil
	}
	h = quietHarness()
	h.Probe, h.NoLedger = byKey, true
	c = h.NewCase(ctx, "IK-07")
	c.handed = []string{"k1", "k2"}
	sent(h, `"k1"`, "acme") // sf-string keys arrive quoted
	sent(h, `"k2"`, "globex")
	if ef := c.Effects(ctx); ef.Total != 2 {
		t.Errorf("a probe counting by key: total %d, want 2 (one per key sent, not per key × tenant)", ef.Total)
	}

	h = quietHarness()
	h.Probe = probe
	c = h.NewCase(ctx, "IK-03")
	c.handed = []string{"k1"}
	sent(h, "k1", "acme")
	if ef := c.Effects(ctx); ef.Total != 0 || !strings.Contains(c.Disagreed(), "ledger counted 0 effects, the target's probe 1") {
		t.Errorf("ledger and probe: total %d, disagreement %q", ef.Total, c.Disagreed())
	}
}

// TestHarness_send_keyHeaderOf: an operation's own key header carries the
// key; the conventions' one is the fallback.
func TestHarness_send_keyHeaderOf(t *testing.T) {
	got := make(chan http.Header, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got <- r.Header }))
	defer srv.Close()
	h := quietHarness()
	h.TargetURL = srv.URL
	h.Conventions = Conventions{KeyHeader: "X-Idem-Key", KeyFormat: "sf-string"}
	render := func(Values, bool) ([]byte, error) { return []byte("{}"), nil }
	h.Operation = Operation{Path: "/a", Render: render}
	order := Operation{Path: "/b", KeyHeader: "X-Order-Key", Render: render}
	ctx := context.Background()
	h.Send(ctx, Call{Key: "k1"})
	h.Send(ctx, Call{Key: "k2", Op: &order})
	if a, b := <-got, <-got; a.Get("X-Idem-Key") != `"k1"` || b.Get("X-Order-Key") != `"k2"` || b.Get("X-Idem-Key") != "" {
		t.Errorf("keys sent: %v then %v", a, b)
	}
}

// TestHarness_NewCase_again: a case judged again draws what the first run
// drew, with keys and tenants of its own.
func TestHarness_NewCase_again(t *testing.T) {
	t.Parallel()
	h := quietHarness()
	first, again := h.NewCase(t.Context(), "HS-09"), h.NewCase(t.Context(), "HS-09"+againSuffix)
	for i := range 5 {
		if a, b := first.IntN(1000), again.IntN(1000); a != b {
			t.Fatalf("draw %d: %d then %d; want the same scenario", i, a, b)
		}
	}
	if first.Key() == again.Key() || first.Tenant() == again.Tenant() {
		t.Error("the second run reused the first's key or tenant, which the target has stored")
	}
}

// TestFirstID: a rerun's case draws what the first run drew; a case
// nested in a rerun (a property's generated case) draws its own.
func TestFirstID(t *testing.T) {
	for id, want := range map[string]string{
		"HS-09": "HS-09", "HS-09/again": "HS-09", "HS-09/again2": "HS-09",
		"DL-03p/again-3": "DL-03p/again-3", "IK-11/again/probe": "IK-11/again/probe",
	} {
		if got := firstID(id); got != want {
			t.Errorf("firstID(%q) = %q; want %q", id, got, want)
		}
	}
}

// TestCase_Rerun: a first run is 0, the nth rerun n, and a case nested in
// a rerun counts as a first run of its own.
func TestCase_Rerun(t *testing.T) {
	for id, want := range map[string]int{
		"BO-08": 0, "BO-08/again": 1, "BO-08/again2": 2, "IK-11/again/probe": 0,
	} {
		if got := (&Case{ID: id}).Rerun(); got != want {
			t.Errorf("Case{ID: %q}.Rerun() = %d; want %d", id, got, want)
		}
	}
}
