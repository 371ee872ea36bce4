package idempotency

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
)

func quietHarness() *check.Harness { return &check.Harness{Journal: faults.NewJournal(), Seed: 1} }

// TestCounted: a disagreement between the counters fails a pass and is
// added to a failure's observation.
func TestCounted(t *testing.T) {
	c := quietHarness().NewCase(context.Background(), "IK-03")
	if r := counted(c, check.Pass("x", "y")); r.Status != reports.StatusPass {
		t.Errorf("no disagreement: %s", r.Status)
	}
	c.Disagree("the ledger counted 1 effects, the target's probe 2")
	if r := counted(c, check.Pass("x", "y")); r.Status != reports.StatusFail || !strings.Contains(r.Observed, "probe 2") {
		t.Errorf("pass with a disagreement: %s %q", r.Status, r.Observed)
	}
	if r := counted(c, check.Fail("x", "3 effects")); !strings.Contains(r.Observed, "3 effects (and the ledger") {
		t.Errorf("fail with a disagreement: %q", r.Observed)
	}
}

// TestKeyed judges every keyed operation on its own case and reports the
// first failure with the operation's name.
func TestKeyed(t *testing.T) {
	h := quietHarness()
	h.Operation = check.Operation{Name: "pay"}
	h.KeyedOperations = []check.Operation{{Name: "pay"}, {Name: "order"}, {Name: "refund"}}
	var seen []string
	judge := func(_ context.Context, c *check.Case) check.Result {
		seen = append(seen, c.Harness.Operation.Name+"@"+c.ID)
		if c.Harness.Operation.Name == "order" {
			return check.Fail("one effect", "2 effects")
		}
		return check.Pass("one effect", "1 effect")
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
