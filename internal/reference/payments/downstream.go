package payments

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/adaptivethrottler"
	"github.com/failsafe-go/failsafe-go/budget"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/failsafe-go/failsafe-go/retrypolicy"

	"github.com/resilcheck/resilcheck/headers"
	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

// caller makes the service's only retried call: POST /charges at the
// processor. Its budget and breaker are shared by all requests; it is safe
// for concurrent use.
type caller struct {
	client *http.Client
	url    string
	cfg    RetryConfig
	rng    *lockedRand

	noKey, noDeadline, noJitter, ignoreRetryAfter, retry4xx bool
	// capPerKind counts attempts towards the cap only since the failure
	// last changed kind (retry-cap-per-failure-kind).
	capPerKind bool
	// bodyUnbounded bounds an attempt by the deadline until the answer's
	// headers arrive, not while its body is read (deadline-on-headers-only).
	bodyUnbounded bool
	// retryAfterCap, when > 0, cuts every Retry-After short to it
	// (retry-after-capped).
	retryAfterCap time.Duration

	policies []failsafe.Policy[*attempt]
	breaker  circuitbreaker.CircuitBreaker[*attempt] // nil under no-retry-budget
	hedge    *hedger                                 // each attempt's copies
	throttle *throttle
}

// attempt is the result of one POST /charges.
type attempt struct {
	status int // 0 when err is set
	header http.Header
	body   []byte
	err    error // transport error or attempt timeout

	next       time.Duration // wait before the next attempt, when one is allowed
	stop       bool          // no further attempt: the caller is gone or the next wait passes the deadline
	callerDone bool          // the caller's context ended during the attempt
}

// chargeCall is one charge to drive.
type chargeCall struct {
	amount    int64
	currency  string
	reference string // the payment id
	key       string // the processor's Idempotency-Key; the payment id
	deadline  time.Time
	// enforce stops attempts at the deadline; false only under work-after-deadline.
	enforce bool
}

type outcomeKind int

const (
	charged  outcomeKind = iota + 1 // 2xx: the charge exists
	declined                        // 402: a final business failure
	rejected                        // another 4xx: the processor refused our request
	unknown                         // no answer we can rely on; the charge may or may not exist
)

// outcome is what the retried call amounted to.
type outcome struct {
	kind       outcomeKind
	chargeID   string
	attempts   int
	deadline   bool          // the caller's budget ran out
	retryAfter time.Duration // for unknown: when a retry might succeed
}

func newCaller(c *config, rng *lockedRand) (*caller, error) {
	u := strings.TrimRight(c.processorURL, "/") + "/charges"
	cl := &caller{
		client:           c.client,
		url:              u,
		cfg:              c.retry,
		rng:              rng,
		noKey:            c.defects.Has(defect.NoDownstreamKey),
		noDeadline:       c.defects.Has(defect.NoDeadlinePropagation),
		noJitter:         c.defects.Has(defect.NoJitter),
		ignoreRetryAfter: c.defects.Has(defect.IgnoreRetryAfter),
		retry4xx:         c.defects.Has(defect.RetryNonRetryable),
		capPerKind:       c.defects.Has(defect.RetryCapPerFailureKind),
		bodyUnbounded:    c.defects.Has(defect.DeadlineOnHeadersOnly),
	}
	if c.defects.Has(defect.RetryAfterCapped) {
		cl.retryAfterCap = time.Second
	}
	cl.hedge = newHedger(c.hedge, c.defects)
	rb := retrypolicy.NewBuilder[*attempt]().
		HandleIf(func(a *attempt, err error) bool { return cl.retryable(a, err) }).
		AbortIf(func(a *attempt, _ error) bool { return a != nil && a.stop }).
		AbortOnErrors(circuitbreaker.ErrOpen, adaptivethrottler.ErrExceeded).
		WithMaxAttempts(cl.maxAttempts()).
		WithDelayFunc(func(exec failsafe.ExecutionAttempt[*attempt]) time.Duration {
			if a := exec.LastResult(); a != nil {
				return a.next
			}
			return 0
		}).
		ReturnLastFailure()
	cl.throttle = newThrottle(cl.cfg.Throttle, c.defects)
	if c.defects.Has(defect.NoRetryBudget) {
		cl.policies = []failsafe.Policy[*attempt]{rb.Build()}
		return cl, nil
	}
	rb = rb.WithBudget(budget.NewBuilder().
		WithMaxRate(cl.cfg.BudgetRatio).
		WithMinConcurrency(cl.cfg.BudgetMinConcurrency).
		Build())
	if cl.cfg.BreakerFailures > cl.cfg.BreakerWindow {
		return nil, fmt.Errorf("payments: breaker failures %d exceed its window %d", cl.cfg.BreakerFailures, cl.cfg.BreakerWindow)
	}
	cl.breaker = circuitbreaker.NewBuilder[*attempt]().
		HandleIf(func(a *attempt, err error) bool { return cl.breakerFailure(a, err) }).
		WithFailureThresholdRatio(cl.cfg.BreakerFailures, cl.cfg.BreakerWindow).
		WithDelay(cl.cfg.BreakerDelay).
		Build()
	// Retry outermost, breaker inside: every attempt asks the breaker.
	cl.policies = []failsafe.Policy[*attempt]{rb.Build(), cl.breaker}
	return cl, nil
}

// maxAttempts is the retry policy's cap: the configured one, or none under
// retry-cap-per-failure-kind, whose cap charge enforces per kind.
func (c *caller) maxAttempts() int {
	if c.capPerKind {
		return -1
	}
	return c.cfg.MaxAttempts
}

// kindStreak counts consecutive attempts that failed the same way, the
// count retry-cap-per-failure-kind caps: a plausible "each kind of failure
// gets its own retries" that lets mixed failures retry without end.
type kindStreak struct {
	kind string
	n    int
}

// add counts a and returns the length of the streak it ends.
func (s *kindStreak) add(a *attempt) int {
	kind := "server"
	switch {
	case a.err != nil:
		kind = "transport"
	case a.status == http.StatusTooManyRequests:
		kind = "throttled"
	}
	if kind != s.kind {
		s.kind, s.n = kind, 0
	}
	s.n++
	return s.n
}

// serverFailure reports a failure of the processor itself: transport errors,
// timeouts, 429 and 5xx except 501. A call the caller abandoned is not the
// processor's fault and does not count against the breaker.
func serverFailure(a *attempt, err error) bool {
	if a == nil {
		return err != nil
	}
	if a.callerDone {
		return false
	}
	if a.err != nil {
		return true
	}
	return a.status == http.StatusTooManyRequests || (a.status >= 500 && a.status != http.StatusNotImplemented)
}

// retryable is serverFailure, plus every 4xx under retry-non-retryable.
func (c *caller) retryable(a *attempt, err error) bool {
	if a != nil && a.callerDone {
		return true // a failure, but a.stop aborts it
	}
	if serverFailure(a, err) {
		return true
	}
	return c.retry4xx && a != nil && a.status >= 400 && a.status < 500
}

// charge drives one charge through retries, budget and breaker. ctx bounds
// all attempts and waits.
func (c *caller) charge(ctx context.Context, call chargeCall) outcome {
	body, _ := json.Marshal(map[string]any{"amount": call.amount, "currency": call.currency, "reference": call.reference})
	var attempts int
	var streak kindStreak
	a, err := failsafe.With(c.policies...).WithContext(ctx).
		GetWithExecution(func(exec failsafe.Execution[*attempt]) (*attempt, error) {
			attempts = exec.Attempts()
			a := c.throttle.do(ctx, func() *attempt { return c.attempt(ctx, call, body) })
			counted := attempts
			if c.capPerKind && c.retryable(a, a.err) {
				counted = streak.add(a)
				a.stop = counted >= c.cfg.MaxAttempts // the policy itself has no cap
			}
			if c.retryable(a, a.err) && counted < c.cfg.MaxAttempts {
				now := time.Now()
				a.next = c.wait(attempts-1, a, now)
				if call.enforce && !now.Add(a.next).Before(call.deadline) {
					a.stop = true // sleeping would pass the deadline: answer now instead
				}
			}
			if ctx.Err() != nil || (call.enforce && !time.Now().Before(call.deadline)) {
				a.callerDone, a.stop = ctx.Err() != nil, true
			}
			return a, a.err
		})
	out := outcome{kind: unknown, attempts: attempts, retryAfter: time.Second}
	if call.enforce && !time.Now().Before(call.deadline) {
		out.deadline = true
	}
	switch {
	case a == nil:
		if errors.Is(err, circuitbreaker.ErrOpen) && c.breaker != nil {
			out.retryAfter = max(out.retryAfter, c.breaker.RemainingDelay())
		}
		return out
	case a.err != nil:
		return out
	case a.status >= 200 && a.status < 300:
		var ch struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(a.body, &ch) != nil || ch.ID == "" {
			out.kind = rejected
			return out
		}
		out.kind, out.chargeID = charged, ch.ID
	case a.status == http.StatusPaymentRequired:
		out.kind = declined
	case a.status >= 400 && a.status < 500 && a.status != http.StatusTooManyRequests:
		out.kind = rejected
	default:
		if ra, ok := a.retryAfter(time.Now()); ok {
			out.retryAfter = max(out.retryAfter, ra)
		}
	}
	return out
}

// attempt makes one attempt of call: one POST /charges, or hedged copies of
// it when the call is slow.
func (c *caller) attempt(ctx context.Context, call chargeCall, body []byte) *attempt {
	return c.hedge.send(ctx, call, func(ctx context.Context, key string) *attempt {
		return c.post(ctx, call, key, body)
	})
}

// post makes one POST /charges carrying key, bounded by the attempt timeout
// and ctx.
func (c *caller) post(ctx context.Context, call chargeCall, key string, body []byte) *attempt {
	actx, cancel := context.WithTimeout(ctx, c.cfg.AttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return &attempt{err: err}
	}
	// Every attempt is counted and paced by the retry policy: stop net/http
	// from replaying this POST on its own when a reused connection dies.
	req.GetBody = nil
	req.Header.Set("Content-Type", "application/json")
	if !c.noKey {
		req.Header.Set("Idempotency-Key", key)
	}
	if !c.noDeadline {
		headers.SetTimeout(req.Header, headers.RequestTimeoutMs, time.Until(call.deadline))
	}
	resp, err := c.do(actx, req)
	if err != nil {
		return &attempt{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return &attempt{err: err}
	}
	return &attempt{status: resp.StatusCode, header: resp.Header, body: b}
}

// do sends req. Under deadline-on-headers-only, ctx bounds only the wait
// for the answer's headers, as a header timeout would: a body that
// trickles in after them is read however long it takes.
func (c *caller) do(ctx context.Context, req *http.Request) (*http.Response, error) {
	if !c.bodyUnbounded {
		return c.client.Do(req)
	}
	dctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	headersIn := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			select {
			case <-headersIn:
			default:
				cancel()
			}
		case <-headersIn:
		}
	}()
	resp, err := c.client.Do(req.WithContext(dctx))
	close(headersIn)
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = cancelOnClose{resp.Body, cancel}
	return resp, nil
}

// cancelOnClose ends a request's context when its body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b cancelOnClose) Close() error {
	defer b.cancel()
	return b.ReadCloser.Close()
}
