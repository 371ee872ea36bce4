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
