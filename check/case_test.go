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
	if first.KeySeed() == again.KeySeed() {
		t.Error("the second run's load would send the first's keys, which the target has stored")
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

// TestCase_ledgerCount: the ledger counts the distinct keys of the calls
// the dependency accepted in the case's window, and every accepted keyless
// call; a call whose key the target forwarded before the case began is
// earlier work arriving late and is left out, as IK-17a once counted a
// heal request's losing hedged copy as a second effect of its own.
func TestCase_ledgerCount(t *testing.T) {
	dep := func(key string, status int, upstream ...int) faults.Entry {
		e := faults.Entry{Side: "dependency", Method: http.MethodPost, Path: "/charges", Status: status,
			UpstreamStatuses: upstream, UpstreamCalls: len(upstream)}
		if key != "" {
			e.Headers = map[string]string{"Idempotency-Key": key}
		}
		return e
	}
	gone := func(key string) faults.Entry { // the target left; the dependency charged
		e := dep(key, 0, http.StatusCreated)
		e.Outcome = faults.OutcomeClientGone
		return e
	}
	ok := func(key string) faults.Entry { return dep(key, http.StatusCreated, http.StatusCreated) }
	tests := []struct {
		name                           string
		before, window                 []faults.Entry
		total, byKey, unkeyed, earlier int
	}{
		{name: "two copies of the case's key are one effect",
			window: []faults.Entry{ok("pay_c6a4"), ok("pay_c6a4")}, total: 1, byKey: 1},
		{name: "a losing copy of an earlier case's charge lands in the window",
			before: []faults.Entry{ok("pay_1863"), ok("pay_1863")},
			window: []faults.Entry{ok("pay_c6a4"), ok("pay_c6a4"), gone("pay_1863")}, total: 1, byKey: 1, earlier: 1},
		{name: "a key forwarded before without effect is still earlier work",
			before: []faults.Entry{dep("pay_old", http.StatusServiceUnavailable, http.StatusServiceUnavailable)},
			window: []faults.Entry{ok("pay_old")}, earlier: 1},
		{name: "the case's second key is a second effect",
			before: []faults.Entry{ok("pay_1863")},
			window: []faults.Entry{ok("pay_c6a4"), ok("pay_9f00")}, total: 2, byKey: 2},
		{name: "keyless calls count whenever they land",
			before: []faults.Entry{ok("")},
			window: []faults.Entry{ok(""), gone("")}, total: 2, unkeyed: 2},
		{name: "a refused call is no effect",
			window: []faults.Entry{dep("pay_c6a4", http.StatusServiceUnavailable, http.StatusServiceUnavailable)}},
		{name: "a key seen before only off the effectful call does not hide an effect",
			before: []faults.Entry{{Side: "dependency", Method: http.MethodGet, Path: "/charges", Headers: map[string]string{"Idempotency-Key": "pay_c6a4"}},
				{Side: "front", Method: http.MethodPost, Path: "/charges", Headers: map[string]string{"Idempotency-Key": "pay_c6a4"}}},
			window: []faults.Entry{ok("pay_c6a4")}, total: 1, byKey: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := quietHarness()
			h.Operation.EffectPath = "/charges"
			for _, e := range tt.before {
				h.Journal.Record(e)
			}
			c := h.NewCase(t.Context(), "IK-17a")
			for _, e := range tt.window {
				h.Journal.Record(e)
			}
			ef := c.Effects(t.Context())
			if ef.Total != tt.total || len(ef.ByKey) != tt.byKey || ef.Unkeyed != tt.unkeyed || ef.Earlier != tt.earlier {
				t.Errorf("total %d, keys %v, unkeyed %d, earlier %d; want %d, %d keys, %d, %d (%s)",
					ef.Total, ef.ByKey, ef.Unkeyed, ef.Earlier, tt.total, tt.byKey, tt.unkeyed, tt.earlier, ef)
			}
			if n := len(ef.Entries); n != len(tt.window)-tt.earlier-refused(tt.window) {
				t.Errorf("%d entries kept as the case's effects, want those counted", n)
			}
		})
	}
}

// refused counts the calls the dependency did not accept.
func refused(es []faults.Entry) int {
	n := 0
	for _, e := range es {
		if !TookEffect(e) {
			n++
		}
	}
	return n
}

// TestCase_Restart_ledger: a restarted window leaves out the keys of the
// window before it, and counts the keys first forwarded after it.
func TestCase_Restart_ledger(t *testing.T) {
	h := quietHarness()
	call := func(key string) {
		h.Journal.Record(faults.Entry{Side: "dependency", Method: http.MethodPost, Headers: map[string]string{"Idempotency-Key": key},
			Status: http.StatusCreated, UpstreamStatuses: []int{http.StatusCreated}, UpstreamCalls: 1})
	}
	c := h.NewCase(t.Context(), "HD-01")
	call("pay_heal")
	if ef := c.Effects(t.Context()); ef.Total != 1 || ef.Earlier != 0 {
		t.Fatalf("before the restart: %s, earlier %d; want 1 effect", ef, ef.Earlier)
	}
	c.Restart(t.Context())
	call("pay_heal") // its losing copy, late
	call("pay_case")
	if ef := c.Effects(t.Context()); ef.Total != 1 || ef.ByKey["pay_case"] != 1 || ef.Earlier != 1 {
		t.Errorf("after the restart: %s, keys %v, earlier %d; want pay_case alone, 1 earlier", ef, ef.ByKey, ef.Earlier)
	}
}

// TestTookEffect_grpc: a gRPC answer is HTTP 200 whatever its outcome, so
// a copy took effect only when its grpc-status was OK, upstream or from
// the stand-in; a status the proxy never read counts as the 200 it began
// as; a gRPC refusal the proxy answered itself is no effect.
func TestTookEffect_grpc(t *testing.T) {
	dep := func(status int, upstream, grpc []int, respHeaders map[string]string) faults.Entry {
		return faults.Entry{Side: "dependency", Method: http.MethodPost, Path: "/ledger.v1.Ledger/CreateEntry", Status: status,
			UpstreamStatuses: upstream, UpstreamGRPCStatuses: grpc, UpstreamCalls: len(upstream), ResponseHeaders: respHeaders}
	}
	tests := []struct {
		name string
		e    faults.Entry
		want bool
	}{
		{"upstream OK", dep(200, []int{200}, []int{0}, map[string]string{"Grpc-Status": "0"}), true},
		{"upstream UNAVAILABLE", dep(200, []int{200}, []int{14}, map[string]string{"Grpc-Status": "14"}), false},
		{"upstream ABORTED, answer lost", dep(0, []int{200}, []int{10}, nil), false},
		{"upstream OK, answer lost", dep(0, []int{200}, []int{0}, nil), true},
		{"duplicated: UNAVAILABLE then OK", dep(200, []int{200, 200}, []int{14, 0}, nil), true},
		{"duplicated: both UNAVAILABLE", dep(200, []int{200, 200}, []int{14, 14}, nil), false},
		{"status never read", dep(0, []int{200}, []int{-1}, nil), true},
		{"HTTP copy beside a gRPC one", dep(503, []int{503, 200}, []int{-1, 14}, nil), false},
		{"HTTP 503 to a gRPC call", dep(503, []int{503}, nil, nil), false},
		{"a grpc-status rule refused it", dep(200, nil, nil, map[string]string{"Grpc-Status": "14", "Content-Type": "application/grpc"}), false},
		{"a respond rule answered OK", dep(200, nil, nil, map[string]string{"Grpc-Status": "0"}), true},
		{"upstream failed", dep(502, []int{0}, nil, nil), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TookEffect(tt.e); got != tt.want {
				t.Errorf("TookEffect(%+v) = %v, want %v", tt.e, got, tt.want)
			}
		})
	}
}
