package store

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// TestInbox_Receive: with dedupe an event takes effect once however often
// and however concurrently it is received; without, every time.
func TestInbox_Receive(t *testing.T) {
	forEachBackend(t, func(t *testing.T, st Store) {
		ctx := context.Background()
		for _, tc := range []struct {
			name   string
			dedupe bool
			n      int // copies received at once
			want   int
		}{
			{"one", true, 1, 1},
			{"copies", true, 8, 1},
			{"no dedupe", false, 8, 8},
		} {
			ev := Event{ID: fmt.Sprintf("msg_%d_%d_%s", runID, tenantSeq.Add(1), tc.name), Type: "payment.settled", Amount: 5, ReceivedAt: t0}
			var wg sync.WaitGroup
			var mu sync.Mutex
			fresh := 0
			for range tc.n {
				wg.Go(func() {
					ok, err := st.Receive(ctx, ev, tc.dedupe)
					if err != nil {
						t.Errorf("%s: Receive: %v", tc.name, err)
					}
					if ok {
						mu.Lock()
						fresh++
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			got, err := st.EventEffects(ctx, ev.ID)
			if err != nil || got != tc.want || fresh != tc.want {
				t.Errorf("%s: %d effects (%v), %d fresh; want %d", tc.name, got, err, fresh, tc.want)
			}
		}
	})
}

// TestInbox_Object: an object's state moves only to a later event's, so an
// earlier event received after a later one changes nothing; with
// LastWriteWins (a defect) the last received wins.
func TestInbox_Object(t *testing.T) {
	forEachBackend(t, func(t *testing.T, st Store) {
		ctx := context.Background()
		for _, tc := range []struct {
			name          string
			lastWriteWins bool
			want          string
		}{
			{"ordered", false, "succeeded"},
			{"last write wins", true, "processing"},
		} {
			obj := fmt.Sprintf("pay_%d_%d", runID, tenantSeq.Add(1))
			if _, ok, err := st.Object(ctx, obj); ok || err != nil {
				t.Fatalf("%s: Object before any event: ok %v, err %v", tc.name, ok, err)
			}
			for i, s := range []ObjectState{{Status: "succeeded", Created: 60}, {Status: "processing", Created: 1}} {
				s.Object, s.LastWriteWins = obj, tc.lastWriteWins
				ev := Event{ID: fmt.Sprintf("msg_%s_%d", obj, i), Type: "payment.updated", ReceivedAt: t0, State: &s}
				if _, err := st.Receive(ctx, ev, true); err != nil {
					t.Fatalf("%s: Receive: %v", tc.name, err)
				}
			}
			got, ok, err := st.Object(ctx, obj)
			if err != nil || !ok || got.Status != tc.want {
				t.Errorf("%s: Object = %+v, %v, %v; want status %s", tc.name, got, ok, err, tc.want)
			}
		}
	})
}
