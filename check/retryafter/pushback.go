package retryafter

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// raNegativePushback is HS-09g: the gRPC dependency refuses every call
// UNAVAILABLE with grpc-retry-pushback-ms: -1, which gRFC A6 makes "do not
// retry": the request must make one attempt. One attempt is told apart
// from a target that never retries UNAVAILABLE by the same case without
// pushback, run first.
func raNegativePushback(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	what := check.GRPCRefusalText(http.StatusServiceUnavailable, -time.Millisecond)
	want := fmt.Sprintf("after %s on every call, no retry: one attempt (hedged copies sent before the refusal arrived are part of it)", what)
	// The comparison goes first: a retry throttle (gRFC A6's, grpc-go's)
	// counts the negative pushback as a failure, and the token it took
	// could stop the comparison's retries and leave a target that honours
	// the pushback not applicable. The other way round, a drained throttle
	// hides only the retries of a target that throttles yet ignores
	// pushback, which gRFC A6's clients do not.
	base, err := raDepCase(ctx, c, 0, config(h).budget(), func() faults.Fault { return check.GRPCRefusal(http.StatusServiceUnavailable, 0) })
	if err != nil {
		return check.Inconclusive("%v", err)
	}
	if calls := base.requestCalls(); len(calls) == 0 {
		return check.Inconclusive("the target made no dependency call (client got %s)", check.Describe(base.reply.Reply))
	} else if attempts := h.Attempts(calls); len(attempts) == 1 {
		return check.NotApplicable("the target does not retry a dependency's UNAVAILABLE at all (%s for one request): no retry for a pushback to stop",
			check.CallCount(calls, attempts))
	}
	stop := check.WatchStalls()
	o, err := raDepCase(ctx, c, 0, config(h).budget(), func() faults.Fault {
		return check.GRPCRefusal(http.StatusServiceUnavailable, -time.Millisecond)
	})
	st := stop()
	if err != nil {
		return check.Inconclusive("%v", err)
	}
	return raJudgePushback(h, want, base, o, st)
}

// raJudgePushback judges HS-09g's case o, refused with a negative
// pushback, after base, the case without pushback in which the target
// retried: more than one attempt fails, unless the attempts beyond the
// first may be hedges the runner kept the target from calling off in time
// (st saw it late enough), which is a noisy runner. Copies are grouped
// as Harness.Attempts groups them: one sent while the refused call was
// outstanding is a hedge, not a retry, but copies sent within 10 ms of the
// first (a hedging delay of 0) are attempts, as a transport's replay is.
func raJudgePushback(h *check.Harness, want string, base, o raDepOutcome, st check.Stalls) check.Result {
	baseCalls := base.requestCalls()
	baseText := fmt.Sprintf("%s for UNAVAILABLE without one", check.CallCount(baseCalls, h.Attempts(baseCalls)))
	calls := o.requestCalls()
	attempts := h.Attempts(calls)
	ev := slices.Concat(base.evidence, o.evidence)
	switch {
	case len(calls) == 0:
		return check.Inconclusive("the target made no dependency call (client got %s)", check.Describe(o.reply.Reply))
	case len(attempts) > 1:
		obs := fmt.Sprintf("%s for one request: the target retried although the dependency said not to (client got %s); %s",
			check.CallCount(calls, attempts), check.Describe(o.reply.Reply), baseText)
		// An attempt that began when the declared hedging sends a copy may
		// be a hedge whose timer fired before the target read the refusal:
		// a matter of how late the runner let it read it.
		if n, late, span := h.RacedHedges(attempts); n > 0 && len(attempts)-n <= 1 {
			// The watch sees a stall as up to its resolution shorter.
			if slow := st.Within(span.From, span.To); slow+st.Resolution() >= late {
				return check.NoisyRunner("%s; %d of the attempts began when the declared hedging would send a copy, a hedge the target's timer fires first when it reads the refusal %s late, and the runner's wake-ups came %s late in all meanwhile",
					obs, n, check.Ms(late), check.Ms(slow))
			}
		}
		return check.Fail(want, obs, ev...).Untimed()
	}
	return check.Pass(want, fmt.Sprintf("%s after the negative pushback (client got %s); %s",
		check.CallCount(calls, attempts), check.Describe(o.reply.Reply), baseText), ev...)
}
