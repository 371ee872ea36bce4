package webhooksender

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// gone (WS-07): an event whose first delivery is answered 410 Gone is not
// delivered again; the endpoint waits a window past the declared first
// wait for a retry that must not come.
func gone(ctx context.Context, s *scase) check.Result {
	if bad := s.trigger(ctx, 1, faults.Abort{Status: http.StatusGone}); bad != "" {
		return check.Inconclusive("%s", bad)
	}
	w := s.window(1)
	return judgeGone(s.await(ctx, w, count(2)), w)
}

// judgeGone passes when as is the one attempt answered 410, none other
// having come within waited of it.
func judgeGone(as []attempt, waited time.Duration) check.Result {
	want := fmt.Sprintf("no attempt after a 410 Gone (none within %s)", waited)
	switch {
	case len(as) == 0:
		return check.Inconclusive("no delivery of the event reached the endpoint within %s of the trigger", waited)
	case len(as) > 1:
		return check.Fail(want, fmt.Sprintf("%d attempts: attempt 2 came %s after the 410", len(as), ms(as[1].at.Sub(as[0].at))), evidence(as)...).Untimed()
	}
	return check.Pass(want, "1 attempt, answered "+describe(as[0])+"; none followed", evidence(as)...)
}
