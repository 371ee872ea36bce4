package webhooksender

import (
	"sync"
	"time"

	"github.com/resilcheck/resilcheck/faults"
)

// together answers the first deliveries of events emitted at once all at
// the same instant: each is held until n have arrived or limit has passed
// since the first did, then every held one gets fault. An endpoint that
// goes down fails the deliveries in flight together; without the barrier
// the sender's own trigger handling spreads the failures, and that spread
// (tens of milliseconds on a loaded machine) would pass for jitter in
// WS-08. Deliveries arriving after the release get fault at once.
type together struct {
	n     int
	limit time.Duration
	fault faults.Fault

	once     sync.Once
	mu       sync.Mutex
	held     int
	deadline time.Time // limit after the first arrival
	open     chan struct{}
}

func newTogether(n int, limit time.Duration, fault faults.Fault) *together {
	return &together{n: n, limit: limit, fault: fault, open: make(chan struct{})}
}

// Inject holds ex until the barrier opens, then applies the fault. The
// wait is on the wall clock, not the proxy's (ex.Sleep): it must end when
// another exchange arrives, which only a channel can say.
func (t *together) Inject(ex *faults.Exchange) error {
	t.mu.Lock()
	if t.held == 0 {
		t.deadline = time.Now().Add(t.limit)
	}
	t.held++
	full, deadline := t.held >= t.n, t.deadline
	t.mu.Unlock()
	if full {
		t.release()
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-t.open:
	case <-timer.C:
		t.release()
	case <-ex.Context().Done():
		return ex.Context().Err()
	}
	return t.fault.Inject(ex)
}

func (t *together) release() { t.once.Do(func() { close(t.open) }) }

// togetherLimit is how long WS-08's first deliveries wait for the others:
// half the declared attempt timeout, so no sender gives up on a held
// delivery, and at most half a second, which a sender that delivers one
// event at a time costs once.
func togetherLimit(attemptTimeout time.Duration) time.Duration {
	if attemptTimeout > 0 {
		return min(attemptTimeout/2, 500*time.Millisecond)
	}
	return 500 * time.Millisecond
}
