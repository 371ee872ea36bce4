package payments

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/failsafe-go/failsafe-go/adaptivethrottler"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

// ThrottleConfig tunes the client-side throttling of the processor's
// refusals (Google SRE book ch. 21, "Client-Side Throttling"). The zero
// value of each field selects its default, shown in brackets.
type ThrottleConfig struct {
	// K is Eq. 21-1's multiplier: calls may reach the processor at about K
	// times the rate it accepts them [2, the book's value]. failsafe-go
	// takes it as a failure-rate threshold of 1 − 1/K.
	K float64
	// MaxRejection caps the share of calls rejected locally, so a trickle
	// still probes a processor that refuses everything [0.9, failsafe-go's
	// default].
	MaxRejection float64
	// Period is the history the throttler counts calls and refusals over
	// [2s: every refusal has aged out of it 2 s after the processor heals].
	Period time.Duration
	// MinCalls is how many calls the history must hold before anything is
	// rejected, so a few refusals among little traffic (one payment's
	// retries) reject nothing [5]. It is also a floor: whenever the history
	// holds fewer, failsafe-go rejects nothing, and every call asking at
	// that moment passes. Under a refusing dependency at 33 requests a
	// second with 90 % rejected, the history records about 7–20 calls per
	// Period: a floor of 10 opened the throttler again and again, and on a
	// busy runner, with many requests waiting at once, 62 calls passed
	// where Eq. 21-1 and its slack allow 38 (TH-01 in CI16).
	MinCalls uint
}

func (t ThrottleConfig) withDefaults() ThrottleConfig {
	if t.K <= 1 {
		t.K = 2
	}
	if t.MaxRejection <= 0 || t.MaxRejection > 1 {
		t.MaxRejection = 0.9
	}
	if t.Period <= 0 {
		t.Period = 2 * time.Second
	}
	if t.MinCalls == 0 {
		t.MinCalls = 5
	}
	return t
}

// throttle rejects processor calls locally while the processor refuses
// work: failsafe-go's adaptive throttler, asked before every attempt (a
// retry too), rejects with probability min(max(0, (calls − K·accepts) /
// (calls + 1)), MaxRejection) over the last Period. A refusal counts
// against it: 429, the processor's "out of quota", the rejection the SRE
// book's throttling counts (gRPC's RESOURCE_EXHAUSTED maps to it). Every
// other answer counts as an accept; 503, crashes, resets and timeouts say
// the processor is failing, and are the circuit breaker's. A call rejected
// locally is not counted (failsafe-go counts executions), so a rejection
// never feeds more rejections.
//
// It is safe for concurrent use; a nil throttle lets every call through.
// no-retry-budget keeps it: it removes the retry budget and the breaker,
// which 429s never fed.
type throttle struct {
	cfg ThrottleConfig
	// gated rejects without asking while the throttler's last computed
	// rejection rate is above zero (throttle-stuck).
	gated bool
	// never counts failures as failsafe-go does by default, by error
	// alone, so an HTTP refusal counts as an accept (throttle-never).
	never bool

	mu   sync.Mutex
	lim  adaptivethrottler.AdaptiveThrottler[*attempt]
	last time.Time // when a call last asked for a permit
}

func newThrottle(cfg ThrottleConfig, defects defect.Set) *throttle {
	return &throttle{cfg: cfg.withDefaults(),
		gated: defects.Has(defect.ThrottleStuck), never: defects.Has(defect.ThrottleNever)}
}

// build makes a fresh throttler with the configured settings.
func (t *throttle) build() adaptivethrottler.AdaptiveThrottler[*attempt] {
	b := adaptivethrottler.NewBuilder[*attempt]().
		WithFailureRateThreshold(1-1/t.cfg.K, t.cfg.MinCalls, t.cfg.Period).
		WithMaxRejectionRate(t.cfg.MaxRejection)
	if !t.never {
		b = b.HandleIf(func(a *attempt, _ error) bool { return refused(a) })
	}
	return b.Build()
}

// permit asks the throttler for one call. failsafe-go v0.9.8 ages its
// history only when it records an outcome, and a rejection records none:
// after a Period without calls, a permit would be decided on counts older
// than the Period. Such a history holds nothing younger, so it starts over.
func (t *throttle) permit() (adaptivethrottler.AdaptiveThrottler[*attempt], bool) {
	t.mu.Lock()
	now := time.Now()
	if t.lim == nil || now.Sub(t.last) >= t.cfg.Period {
		t.lim = t.build()
	}
	t.last = now
	lim := t.lim
	t.mu.Unlock()
	if t.gated && lim.RejectionRate() > 0 {
		// throttle-stuck: a fast path that reads the metric as the
		// decision. failsafe-go recomputes the rate only in AcquirePermit,
		// so once it is above zero it never falls while calls keep coming.
		return lim, false
	}
	return lim, lim.TryAcquirePermit()
}

// do makes the attempt fn through the throttler. A call rejected locally
// is an attempt failed with adaptivethrottler.ErrExceeded, on which the
// retry policy aborts (even under retry-cap-per-failure-kind, whose cap
// would take it for a new kind of failure): the service answers 503 with
// Retry-After at once.
func (t *throttle) do(ctx context.Context, fn func() *attempt) *attempt {
	if t == nil {
		return fn()
	}
	lim, ok := t.permit()
	if !ok {
		return &attempt{err: adaptivethrottler.ErrExceeded, stop: true}
	}
	a := fn()
	switch {
	case ctx.Err() != nil:
		// The caller gave up: the answer says nothing about the processor.
	case a.err != nil:
		lim.RecordError(a.err)
	default:
		lim.RecordResult(a)
	}
	return a
}

// refused reports a refusal: the processor answered 429, out of quota,
// shedding this client's load rather than failing.
func refused(a *attempt) bool {
	return a != nil && a.err == nil && a.status == http.StatusTooManyRequests
}

// breakerFailure is what the circuit breaker counts: serverFailure less
// what the throttler handles, the processor's refusals and the throttler's
// own rejections. Under sustained refusals the throttler, not the breaker,
// cuts the traffic, and a trickle keeps probing; a breaker counting them
// too would open first and hide whether the throttler works. 503, crashes,
// resets, timeouts and the other 5xx still open the breaker, as fast as
// before (5 failures of the last 10 attempts), which a throttler's history
// of seconds cannot match.
func (c *caller) breakerFailure(a *attempt, err error) bool {
	if c.throttle != nil && (refused(a) || errors.Is(err, adaptivethrottler.ErrExceeded)) {
		return false
	}
	return serverFailure(a, err)
}
