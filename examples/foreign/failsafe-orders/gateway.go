package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/failsafe-go/failsafe-go/adaptivethrottler"
	"github.com/failsafe-go/failsafe-go/budget"
	"github.com/failsafe-go/failsafe-go/failsafehttp"
	"github.com/failsafe-go/failsafe-go/hedgepolicy"
)

// deadlineHeader carries a budget in milliseconds, in and out.
const deadlineHeader = "X-Request-Timeout-Ms"

const (
	// hedgeDelay is how long a copy is outstanding before the hedge policy
	// starts the next one (hedgepolicy.NewBuilderWithDelay). The gateway
	// answers in a few milliseconds, so only a slow charge is hedged.
	hedgeDelay = 250 * time.Millisecond
	// hedgeMax is WithMaxHedges: copies after the first, so 3 in all.
	hedgeMax = 2
	// hedgeBudgetRate and hedgeBudgetMin are the hedge budget
	// (budget.NewBuilder, whose defaults they are): a hedge is refused once
	// at least 3 hedges are in flight and they are more than 20 % of the
	// executions in flight, the primaries included.
	hedgeBudgetRate = 0.2
	hedgeBudgetMin  = 3

	// throttleThreshold is the failure rate above which the throttler
	// rejects (WithFailureRateThreshold, 0.1 as failsafe-go's docs show
	// it): it lets through executions up to successes/(1 − 0.1), Eq.
	// 21-1's K = 1/0.9 ≈ 1.11.
	throttleThreshold = 0.1
	// throttleMinCalls is the executions its history must hold before it
	// rejects anything.
	throttleMinCalls = 10
	// throttlePeriod is the history: 20 buckets of 500 ms. The docs show a
	// minute; 10 s forgets a refusal within a certification's patience.
	throttlePeriod = 10 * time.Second
	// throttleMaxRejection caps the rejection rate (WithMaxRejectionRate,
	// failsafe-go's default .9).
	throttleMaxRejection = 0.9
)

// gateway charges orders at the payment gateway.
type gateway struct {
	url    string
	client *http.Client
}

// newGateway composes the policies as failsafe-go's docs do,
// outer-most first: Hedge(Throttler(round trip)). Every copy the hedge
// policy starts asks the throttler for a permit and records its answer.
func newGateway(base string) *gateway {
	throttler := adaptivethrottler.NewBuilder[*http.Response]().
		HandleIf(func(resp *http.Response, _ error) bool {
			return resp != nil && resp.StatusCode == http.StatusTooManyRequests
		}).
		WithFailureRateThreshold(throttleThreshold, throttleMinCalls, throttlePeriod).
		WithMaxRejectionRate(throttleMaxRejection).
		Build()
	hedge := hedgepolicy.NewBuilderWithDelay[*http.Response](hedgeDelay).
		WithMaxHedges(hedgeMax).
		WithBudget(budget.NewBuilder().WithMaxRate(hedgeBudgetRate).WithMinConcurrency(hedgeBudgetMin).Build()).
		Build()
	rt := failsafehttp.NewRoundTripper(perCopy{http.DefaultTransport}, hedge, throttler)
	return &gateway{url: base + "/v1/charges", client: &http.Client{Transport: rt}}
}

// deadlineKey holds the caller's deadline in the request's context.
// failsafehttp hands each copy a context merged from the caller's and the
// copy's own (util.MergeContexts), which is cancelled with either but has
// no Deadline; a value is still found in it.
type deadlineKey struct{}

// perCopy is the round tripper under the policies: failsafehttp gives
// every copy its own body (bodyReader) on a shallow copy of the caller's
// request, whose Header map the copies share; so each copy is cloned
// before the budget left when it is sent is set on it.
type perCopy struct{ next http.RoundTripper }

func (p perCopy) RoundTrip(r *http.Request) (*http.Response, error) {
	dl, ok := r.Context().Value(deadlineKey{}).(time.Time)
	if !ok {
		return p.next.RoundTrip(r)
	}
	c := r.Clone(r.Context())
	c.Header.Set(deadlineHeader, strconv.FormatInt(max(0, time.Until(dl).Milliseconds()), 10))
	return p.next.RoundTrip(c)
}

// errGateway is a charge the gateway answered with a failure.
type errGateway struct{ status int }

func (e errGateway) Error() string { return fmt.Sprintf("payment gateway answered %d", e.status) }

// charge posts one charge under key; ctx carries the caller's deadline.
func (g *gateway) charge(ctx context.Context, key string, body []byte) ([]byte, error) {
	if dl, ok := ctx.Deadline(); ok {
		ctx = context.WithValue(ctx, deadlineKey{}, dl)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("charge request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	resp, err := g.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("charge: %w", err)
	}
	defer resp.Body.Close() // failsafehttp's bodyWithCancel: ends the winner's context too
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("charge answer: %w", err)
	}
	if resp.StatusCode >= 300 {
		return nil, errGateway{resp.StatusCode}
	}
	return out, nil
}
