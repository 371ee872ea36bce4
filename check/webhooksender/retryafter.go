package webhooksender

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// retryAfter429 (WS-06): an event whose first delivery is answered 429
// with Retry-After is not delivered again before it.
func retryAfter429(ctx context.Context, s *scase) check.Result {
	return waitedOut(ctx, s, http.StatusTooManyRequests)
}

// retryAfter503 (WS-06b): the same for 503.
func retryAfter503(ctx context.Context, s *scase) check.Result {
	return waitedOut(ctx, s, http.StatusServiceUnavailable)
}

// waitedOut answers the event's first delivery status with a Retry-After
// longer than the declared first wait, and judges the retry's delay.
func waitedOut(ctx context.Context, s *scase, status int) check.Result {
	ra := s.cfg.retryAfter(s.p.Wait(1))
	fault := faults.Abort{Status: status, Headers: map[string]string{"Retry-After": strconv.Itoa(int(ra / time.Second))}}
	if bad := s.trigger(ctx, 1, fault); bad != "" {
		return check.Inconclusive("%s", bad)
	}
	as := s.await(ctx, ra+s.window(1), count(2))
	return judgeRetryAfter(as, status, ra, s.Slack())
}

// judgeRetryAfter passes when the retry after a status answered with
// Retry-After ra came no sooner than ra less slack.
func judgeRetryAfter(as []attempt, status int, ra, slack time.Duration) check.Result {
	want := fmt.Sprintf("no retry sooner than the Retry-After of %s on a %d, less a slack of %s", ra, status, ms(slack))
	if len(as) < 2 {
		return check.Inconclusive("%d attempt of the event: no retry after the %d to time", len(as), status)
	}
	g := as[1].at.Sub(as[0].at)
	obs := fmt.Sprintf("the retry came %s after the %d", ms(g), status)
	if short := (ra - slack) - g; short > 0 {
		r := check.Fail(want, obs, evidence(as)...)
		r.Margin = short
		return r
	}
	return check.Pass(want, obs, evidence(as)...)
}
