package payments

import (
	"net/http"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

// noHedging turns hedging off for tests of retries alone.
var noHedging = HedgeConfig{Delay: -1}

// slowFirst answers the first copy after slow (or when it is cancelled, noting
// when) and every later copy at once with 201.
type slowFirst struct {
	slow time.Duration

	mu        sync.Mutex
	cancelled []time.Time
}

func (s *slowFirst) fn(n int, w http.ResponseWriter, r *http.Request) {
	if n == 1 {
		select {
		case <-time.After(s.slow):
		case <-r.Context().Done():
			s.mu.Lock()
			s.cancelled = append(s.cancelled, time.Now())
			s.mu.Unlock()
			return
		}
	}
	status(http.StatusCreated)(n, w, r)
}

func newHedgingCaller(t *testing.T, s *script, defects ...defect.Name) *caller {
	t.Helper()
	set := defect.Set{}
	for _, d := range defects {
		set[d] = true
	}
	c, err := newCaller(&config{processorURL: "http://processor.test", retry: RetryConfig{}.withDefaults(),
		client: &http.Client{Transport: inProcess{s}}, defects: set}, newLockedRand(1))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCaller_Hedge drives one charge whose first copy is slow: the default
// hedges once after 300 ms with the same key and cancels the loser; each
// defect breaks exactly what it names.
func TestCaller_Hedge(t *testing.T) {
	for _, tc := range []struct {
		name      string
		defects   []defect.Name
		slow      time.Duration
		gaps      []time.Duration // between copies' arrivals
		keys      int             // distinct keys among the copies
		cancelled int
	}{
		{"fast-call-not-hedged", nil, 100 * time.Millisecond, nil, 1, 0},
		{"slow-call-hedged-once", nil, 2 * time.Second, []time.Duration{300 * time.Millisecond}, 1, 1},
		{"no-delay", []defect.Name{defect.HedgeNoDelay}, 2 * time.Second, []time.Duration{0}, 1, 1},
		{"max-copies", []defect.Name{defect.HedgeMaxCopies}, 2 * time.Second, []time.Duration{300 * time.Millisecond}, 1, 1},
		{"loser-kept", []defect.Name{defect.HedgeLoserKept}, 2 * time.Second, []time.Duration{300 * time.Millisecond}, 1, 0},
		{"new-key", []defect.Name{defect.HedgeNewKey}, 2 * time.Second, []time.Duration{300 * time.Millisecond}, 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				sf := &slowFirst{slow: tc.slow}
				s := &script{fn: sf.fn}
				out := chargeWithin(newHedgingCaller(t, s, tc.defects...), 5*time.Second)
				time.Sleep(tc.slow) // a loser left running ends by then
				synctest.Wait()
				if out.kind != charged {
					t.Errorf("outcome %+v; want charged", out)
				}
				if g := gaps(s.attempts()); !slices.Equal(g, tc.gaps) {
					t.Errorf("gaps between copies %v; want %v", g, tc.gaps)
				}
				keys := map[string]bool{}
				for _, h := range s.hdr {
					keys[h.Get("Idempotency-Key")] = true
				}
				if len(keys) != tc.keys {
					t.Errorf("keys %v; want %d distinct", keys, tc.keys)
				}
				if len(sf.cancelled) != tc.cancelled {
					t.Errorf("%d copies cancelled; want %d", len(sf.cancelled), tc.cancelled)
				}
			})
		})
	}
}

// TestCaller_HedgeMaxCopies holds every copy: the default sends 2, the
// defect 4.
func TestCaller_HedgeMaxCopies(t *testing.T) {
	for _, tc := range []struct {
		defects []defect.Name
		copies  int
	}{{nil, 2}, {[]defect.Name{defect.HedgeMaxCopies}, 4}} {
		synctest.Test(t, func(t *testing.T) {
			s := &script{fn: func(_ int, _ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }}
			chargeWithin(newHedgingCaller(t, s, tc.defects...), 2500*time.Millisecond)
			synctest.Wait()
			if n := len(s.attempts()); n < tc.copies || n%tc.copies != 0 {
				t.Errorf("defects %v: %d copies in all; want a multiple of %d per attempt", tc.defects, n, tc.copies)
			}
		})
	}
}

// TestCaller_HedgeBudget holds every copy of 16 concurrent charges: the
// budget (hedges at most 20 % of copies in flight, as failsafe-go counts
// them) allows 5 hedges; without it every charge is hedged.
func TestCaller_HedgeBudget(t *testing.T) {
	for _, tc := range []struct {
		defects []defect.Name
		hedges  int
	}{{nil, 5}, {[]defect.Name{defect.HedgeNoBudget}, 16}} {
		synctest.Test(t, func(t *testing.T) {
			s := &script{fn: func(_ int, _ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }}
			c := newHedgingCaller(t, s, tc.defects...)
			var wg sync.WaitGroup
			for range 16 {
				wg.Go(func() { chargeWithin(c, 500*time.Millisecond) })
			}
			wg.Wait()
			if n := len(s.attempts()) - 16; n != tc.hedges {
				t.Errorf("defects %v: %d hedges; want %d", tc.defects, n, tc.hedges)
			}
		})
	}
}
