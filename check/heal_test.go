package check

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"
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
