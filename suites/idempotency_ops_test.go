package suites

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
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
	c.keys = []string{"k1"}
	sent(h, "k1", "acme")
	sent(h, "k1", "globex")
	sent(h, "not-drawn", "acme") // a malformed key the case did not draw (IK-14)
	c.Track("t", "p")
	if ef := c.Effects(ctx); ef.Total != 4 || c.Disagreed() != "" {
		t.Errorf("probe alone: total %d (want 4), disagreement %q", ef.Total, c.Disagreed())
	}

	byKey := func(_ context.Context, v Values) (int, error) { return map[string]int{"k1": 1, "k2": 1}[v.Key], nil }
	h = quietHarness()
	h.Probe, h.NoLedger = byKey, true
	c = h.NewCase(ctx, "IK-07")
	c.keys = []string{"k1", "k2"}
	sent(h, `"k1"`, "acme") // sf-string keys arrive quoted
	sent(h, `"k2"`, "globex")
	if ef := c.Effects(ctx); ef.Total != 2 {
		t.Errorf("a probe counting by key: total %d, want 2 (one per key sent, not per key × tenant)", ef.Total)
	}

	h = quietHarness()
	h.Probe = probe
	c = h.NewCase(ctx, "IK-03")
	c.keys = []string{"k1"}
	sent(h, "k1", "acme")
	if ef := c.Effects(ctx); ef.Total != 0 || !strings.Contains(c.Disagreed(), "ledger counted 0 effects, the target's probe 1") {
		t.Errorf("ledger and probe: total %d, disagreement %q", ef.Total, c.Disagreed())
	}
}

// TestCounted: a disagreement between the counters fails a pass and is
// added to a failure's observation.
func TestCounted(t *testing.T) {
	c := quietHarness().NewCase(context.Background(), "IK-03")
	if r := counted(c, Pass("x", "y")); r.Status != reports.StatusPass {
		t.Errorf("no disagreement: %s", r.Status)
	}
	c.disagree("the ledger counted 1 effects, the target's probe 2")
	if r := counted(c, Pass("x", "y")); r.Status != reports.StatusFail || !strings.Contains(r.Observed, "probe 2") {
		t.Errorf("pass with a disagreement: %s %q", r.Status, r.Observed)
	}
	if r := counted(c, Fail("x", "3 effects")); !strings.Contains(r.Observed, "3 effects (and the ledger") {
		t.Errorf("fail with a disagreement: %q", r.Observed)
	}
}

// TestKeyed judges every keyed operation on its own case and reports the
// first failure with the operation's name.
func TestKeyed(t *testing.T) {
	h := quietHarness()
	h.Operation = Operation{Name: "pay"}
	h.KeyedOperations = []Operation{{Name: "pay"}, {Name: "order"}, {Name: "refund"}}
	var seen []string
	judge := func(_ context.Context, c *Case) Result {
		seen = append(seen, c.Harness.Operation.Name+"@"+c.ID)
		if c.Harness.Operation.Name == "order" {
			return Fail("one effect", "2 effects")
		}
		return Pass("one effect", "1 effect")
	}
	c := h.NewCase(context.Background(), "IK-04")
	r := keyed(judge)(context.Background(), c)
	if r.Status != reports.StatusFail || r.Observed != "operation order: 2 effects" {
		t.Errorf("keyed = %s %q", r.Status, r.Observed)
	}
	if !slices.Equal(seen, []string{"pay@IK-04/pay", "order@IK-04/order"}) {
		t.Errorf("judged %v", seen)
	}
	h.KeyedOperations = h.KeyedOperations[:1]
	seen = nil
	if r := keyed(judge)(context.Background(), c); r.Status != reports.StatusPass || !slices.Equal(seen, []string{"pay@IK-04"}) {
		t.Errorf("one keyed operation: %s, judged %v", r.Status, seen)
	}
}

func TestNeedKeyKept(t *testing.T) {
	n := needKeyKept(2 * time.Second)
	for ttl, unmet := range map[time.Duration]bool{0: false, time.Second: true, 2 * time.Second: false, 24 * time.Hour: false} {
		h := quietHarness()
		h.Conventions.KeyTTL = ttl
		if got := n.Unmet(h); (got != "") != unmet || unmet && !strings.Contains(got, "key_ttl") {
			t.Errorf("key TTL %s: unmet %q", ttl, got)
		}
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
