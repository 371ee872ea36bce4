package retryafter

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// raNegativePushback is HS-09g: the gRPC dependency refuses every call
// UNAVAILABLE with grpc-retry-pushback-ms: -1, which gRFC A6 makes "do not
// retry": the request must reach it once. One call is told apart from a
// target that never retries UNAVAILABLE by the same case without pushback.
func raNegativePushback(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	stop := check.GRPCRefusal(http.StatusServiceUnavailable, -time.Millisecond)
	what := check.GRPCRefusalText(http.StatusServiceUnavailable, -time.Millisecond)
	want := fmt.Sprintf("after %s on every call, no retry: exactly 1 dependency call", what)
	o, err := raDepCase(ctx, c, 0, config(h).budget(), func() faults.Fault { return stop })
	if err != nil {
		return check.Inconclusive("%v", err)
	}
	calls := o.keyCalls()
	switch {
	case len(calls) == 0:
		return check.Inconclusive("the target made no dependency call (client got %s)", check.Describe(o.reply.Reply))
	case len(calls) > 1:
		return check.Fail(want, fmt.Sprintf("%d calls for one request: the target retried although the dependency said not to (client got %s)",
			len(calls), check.Describe(o.reply.Reply)), o.evidence...).Untimed()
	}
	base, err := raDepCase(ctx, c, 0, config(h).budget(), func() faults.Fault { return check.GRPCRefusal(http.StatusServiceUnavailable, 0) })
	if err != nil {
		return check.Inconclusive("%v", err)
	}
	if n := len(base.keyCalls()); n > 1 {
		return check.Pass(want, fmt.Sprintf("1 call after the negative pushback (client got %s); %d calls for UNAVAILABLE without one",
			check.Describe(o.reply.Reply), n), append(o.evidence, base.evidence...)...)
	}
	return check.NotApplicable("the target does not retry a dependency's UNAVAILABLE at all: no retry for a pushback to stop")
}
