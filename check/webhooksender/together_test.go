package webhooksender

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/faults"
)

// TestTogether_Inject sends the first deliveries of four events through a
// proxy whose script holds them in a barrier: none is answered before the
// last arrives (or the limit passed), and then all get the fault.
func TestTogether_Inject(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		sent  int
		limit time.Duration
	}{
		{"all arrive", 4, time.Minute},
		{"one short: the limit opens it", 3, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := acceptingProxy(t)
			if err := p.Rules().Add(faults.Rule{Name: "barrier", Fault: &script{events: 4, n: 1, fault: newTogether(4, tc.limit, internalError)}}); err != nil {
				t.Fatal(err)
			}
			var (
				wg       sync.WaitGroup
				mu       sync.Mutex
				answered []time.Time
				statuses []int
			)
			sent := make([]time.Time, tc.sent)
			for i := range tc.sent {
				if i > 0 {
					time.Sleep(20 * time.Millisecond) // arrivals apart, as a sender's triggers are
				}
				sent[i] = time.Now()
				wg.Add(1)
				go func(body string) {
					defer wg.Done()
					resp, err := http.Post(p.URL(), "text/plain", strings.NewReader(body))
					if err != nil {
						t.Error(err)
						return
					}
					resp.Body.Close()
					mu.Lock()
					answered = append(answered, time.Now())
					statuses = append(statuses, resp.StatusCode)
					mu.Unlock()
				}(fmt.Sprint("event ", i))
			}
			wg.Wait()
			last := sent[len(sent)-1]
			for i, a := range answered {
				if a.Before(last) {
					t.Errorf("delivery answered at %s, before the last was sent at %s", a.Format(time.StampMicro), last.Format(time.StampMicro))
				}
				if statuses[i] != http.StatusInternalServerError {
					t.Errorf("status %d, want 500", statuses[i])
				}
			}
			if tc.sent < 4 && answered[0].Sub(sent[0]) < tc.limit {
				t.Errorf("first answered %s after it was sent, before the %s limit", answered[0].Sub(sent[0]), tc.limit)
			}
		})
	}
}
