package check

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/resilcheck/resilcheck/reports"
)

// handlerTransport serves a request with h in memory, so a heal runs on
// synctest's clock.
type handlerTransport struct{ h http.HandlerFunc }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h(rec, r)
	return rec.Result(), nil
}

// TestCase_Heal: a target answering every operation 201 after 700 ms heals
// a streak of 36 (five batches, 3.5 s) within 1 s, renewed by each batch
// that grew the streak; one answering 500 gives up after 1 s.
func TestCase_Heal(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		err    string // "" = healed, else in the error
	}{
		{"slow successes", http.StatusCreated, ""},
		{"failures", http.StatusInternalServerError, "did not answer 36 operations in a row"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := quietHarness()
				h.TargetURL = "http://target.test"
				h.Client = &http.Client{Transport: handlerTransport{func(w http.ResponseWriter, _ *http.Request) {
					time.Sleep(700 * time.Millisecond)
					w.WriteHeader(tc.status)
				}}}
				h.Operation = Operation{Path: "/pay", Render: func(Values, bool) ([]byte, error) { return []byte("{}"), nil }}
				c := h.NewCase(context.Background(), "HS-T")
				start := time.Now()
				err := c.Heal(context.Background(), 36, time.Second)
				switch {
				case tc.err == "" && err != nil:
					t.Fatalf("Heal: %v; want healed", err)
				case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
					t.Fatalf("Heal: %v; want an error with %q", err, tc.err)
				case tc.err != "" && time.Since(start) > 2*time.Second:
					t.Errorf("gave up after %s; want about 1 s", time.Since(start))
				}
			})
		})
	}
}

// TestHarness_starvedHeal: a check left inconclusive because its heal gave
// up is a noisy runner's verdict, run again, when the runner stalled past
// what a heal can bear while healing (500 ms at once, or in all and a
// fifth of the heal's second), and
// stands as the target's when it kept up.
func TestHarness_starvedHeal(t *testing.T) {
	for _, tc := range []struct {
		name      string
		seen      stalls
		wantNoisy bool
		wantRuns  int
	}{
		{"quiet runner", stalls{worst: 20 * time.Millisecond, total: 200 * time.Millisecond}, false, 1},
		{"one long stall", stalls{worst: 800 * time.Millisecond, total: 800 * time.Millisecond}, true, 3},
		{"many short ones", stalls{worst: 90 * time.Millisecond, total: 600 * time.Millisecond}, true, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := quietHarness()
				h.TargetURL = "http://target.test"
				h.Client = &http.Client{Transport: handlerTransport{func(w http.ResponseWriter, _ *http.Request) {
					w.WriteHeader(http.StatusServiceUnavailable)
				}}}
				h.Operation = Operation{Path: "/pay", Render: func(Values, bool) ([]byte, error) { return []byte("{}"), nil }}
				h.stallWatch = func() func() stalls { return func() stalls { return tc.seen } }
				runs := 0
				chk := Check{ID: "RB-T", Suite: "amplification", Run: func(ctx context.Context, c *Case) Result {
					runs++
					if err := c.Heal(ctx, 36, time.Second); err != nil {
						return Inconclusive("before the check: %v", err)
					}
					return Pass("healed", "healed")
				}}
				res := Judge(t.Context(), h, chk)
				if res.Status != reports.StatusInconclusive || res.Noisy != tc.wantNoisy || runs != tc.wantRuns {
					t.Errorf("%s, noisy %v after %d runs (%s); want inconclusive, noisy %v after %d", res.Status, res.Noisy, runs, res.Reason, tc.wantNoisy, tc.wantRuns)
				}
				if tc.wantNoisy && !strings.Contains(res.Reason, "trying to heal the target") {
					t.Errorf("reason %q does not say the runner stalled while healing", res.Reason)
				}
			})
		})
	}
}
