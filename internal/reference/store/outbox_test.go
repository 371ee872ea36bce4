package store

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// TestOutbox_completeAddsEvent: the payment a Complete inserts brings its
// event into the outbox in the same transaction, a declined one brings
// none, a refused Complete neither; a marked event is not listed again.
func TestOutbox_completeAddsEvent(t *testing.T) {
	forEachBackend(t, func(t *testing.T, st Store) {
		ctx := context.Background()
		tn := tenant("acme")
		ok := fmt.Sprintf("pay_ok_%d_%d", runID, tenantSeq.Add(1))
		declined := fmt.Sprintf("pay_no_%d_%d", runID, tenantSeq.Add(1))
		refused := fmt.Sprintf("pay_x_%d_%d", runID, tenantSeq.Add(1))
		st.Claim(ctx, newRecord(tn, "k1", "o1", "fp", ok, t0), t0)
		st.Claim(ctx, newRecord(tn, "k2", "o1", "fp", declined, t0), t0)
		st.Claim(ctx, newRecord(tn, "k3", "o1", "fp", refused, t0), t0)
		pay := func(id, status string) *Payment {
			return &Payment{ID: id, Tenant: tn, Key: "k", Amount: 5, Currency: "EUR", Status: status, CreatedAt: t0}
		}
		if err := st.Complete(ctx, tn, "k1", "o1", Succeeded, 201, []byte("x"), pay(ok, "succeeded")); err != nil {
			t.Fatal(err)
		}
		if err := st.Complete(ctx, tn, "k2", "o1", Failed, 402, []byte("x"), pay(declined, "declined")); err != nil {
			t.Fatal(err)
		}
		_ = st.Complete(ctx, tn, "k3", "intruder", Succeeded, 201, []byte("x"), pay(refused, "succeeded"))
		ids := func() []string {
			evs, err := st.Unpublished(ctx, 10000)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, e := range evs {
				out = append(out, e.ID)
			}
			return out
		}
		got := ids()
		if !slices.Contains(got, ok) || slices.Contains(got, declined) || slices.Contains(got, refused) {
			t.Errorf("unpublished %v: want %s, and neither %s nor %s", got, ok, declined, refused)
		}
		if err := st.MarkPublished(ctx, ok); err != nil {
			t.Fatal(err)
		}
		if slices.Contains(ids(), ok) {
			t.Errorf("%s still unpublished after MarkPublished", ok)
		}
	})
}
