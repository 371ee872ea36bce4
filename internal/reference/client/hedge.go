package client

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/hedgepolicy"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

// hedging is how the client hedges a slow attempt; the zero value does not.
type hedging struct {
	delay  time.Duration
	copies int
}

// WithHedging sends another copy of an attempt still outstanding after
// delay, up to copies in all, with the same idempotency key, and cancels the
// others once one is answered (failsafe-go's hedgepolicy). Only keyed or
// idempotent requests are hedged: a copy of anything else could act twice.
func WithHedging(delay time.Duration, copies int) Option {
	return func(c *Client) error {
		if delay <= 0 || copies < 2 {
			return fmt.Errorf("client: WithHedging(%s, %d): want a positive delay and at least 2 copies", delay, copies)
		}
		c.hedge = hedging{delay: delay, copies: copies}
		return nil
	}
}

// roundTripHedged makes one attempt of k: a single request, or hedged
// copies of it when the client hedges and k is safe to repeat.
func (c *Client) roundTripHedged(ctx context.Context, k call, budget time.Duration) (*response, error) {
	if c.hedge.copies < 2 || !k.repeatable() {
		return c.roundTrip(ctx, k, budget)
	}
	delay, hedges := c.hedge.delay, c.hedge.copies-1
	if c.defects.Has(defect.ClientHedgeEarly) {
		delay /= 3
	}
	if c.defects.Has(defect.ClientHedgeMaxCopies) {
		hedges = c.hedge.copies + 1
	}
	p := hedgepolicy.NewBuilderWithDelay[*response](delay).WithMaxHedges(hedges).Build()
	return failsafe.With[*response](p).WithContext(ctx).
		GetWithExecution(func(exec failsafe.Execution[*response]) (*response, error) {
			cctx, kk := exec.Context(), k
			if c.defects.Has(defect.ClientHedgeLoserKept) {
				// A copy on a context of its own, which only the attempt's
				// deadline ends.
				var cancel context.CancelFunc
				dl, _ := ctx.Deadline()
				cctx, cancel = context.WithDeadline(context.WithoutCancel(ctx), dl)
				defer cancel()
			}
			if exec.IsHedge() && kk.key != "" && c.defects.Has(defect.ClientHedgeNewKey) {
				kk.key = c.newKey()
			}
			// A copy sent later states what is left of the attempt's
			// budget then, unless the budget is stale by design
			// (client-stale-budget states the whole deadline throughout).
			b := budget
			if dl, ok := ctx.Deadline(); ok && !c.defects.Has(defect.ClientStaleBudget) {
				b = min(b, time.Until(dl))
			}
			return c.roundTrip(cctx, kk, b)
		})
}

// repeatable says whether a copy of k cannot act twice: it carries an
// idempotency key, or its method is idempotent (RFC 9110 §9.2.2).
func (k call) repeatable() bool {
	switch k.method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete:
		return true
	}
	return k.key != ""
}
