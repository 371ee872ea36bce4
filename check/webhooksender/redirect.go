package webhooksender

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// redirected (WS-09): an event's first delivery is answered 307 with a
// Location elsewhere on the endpoint; the sender takes it for a failure,
// as any answer but a 2xx: it goes nowhere near the Location and retries
// at the endpoint's own URL. A 307 keeps the method and body, so a sender
// that follows it delivers the event where its receiver never asked for
// it (and a 301 or 302 would turn the POST into a GET).
func redirected(ctx context.Context, s *scase) check.Result {
	moved := "/resilcheck-moved-" + s.Key()
	redirect := faults.Respond{Status: http.StatusTemporaryRedirect, Headers: map[string]string{"Location": moved}}
	if bad := s.trigger(ctx, 1, redirect); bad != "" {
		return check.Inconclusive("%s", bad)
	}
	w := s.window(1)
	as := s.await(ctx, w, count(2))
	want := fmt.Sprintf("the 307 not followed to %s; the event retried at the endpoint's own URL (within %s)", moved, w)
	var followed []faults.Entry
	for _, e := range s.Entries(check.WebhookSenderSide) {
		if e.Path == moved {
			followed = append(followed, e)
		}
	}
	switch {
	case len(followed) > 0:
		return check.Fail(want, fmt.Sprintf("%d requests to %s: the sender followed the 307 (%s %s, %s after the first attempt)",
			len(followed), moved, followed[0].Method, followed[0].Path, ms(followed[0].Received.Sub(firstAt(as, followed[0])))), append(evidence(as), followed...)...).Untimed()
	case len(as) == 0:
		return check.Inconclusive("no delivery of the event reached the endpoint within %s of the trigger", w)
	case len(as) == 1:
		// As judgeRetried: how far past the declared retry the endpoint
		// waited, over a wait no journaled attempt covers.
		r := check.Fail(want, fmt.Sprintf("1 attempt, answered %s; no retry within %s: the 307 was taken for a delivery", describe(as[0]), w), evidence(as)...)
		r.Margin = w - s.p.Wait(1)
		r.Waited = check.Span{From: as[0].at, To: as[0].at.Add(w)}
		return r
	}
	return check.Pass(want, fmt.Sprintf("attempt 1 answered %s; attempt 2 came %s later, to %s", describe(as[0]), ms(as[1].at.Sub(as[0].at)), as[1].entry.Path), evidence(as)...)
}

// firstAt is when the first of as was received, or e's time when there
// is none.
func firstAt(as []attempt, e faults.Entry) time.Time {
	if len(as) > 0 {
		return as[0].at
	}
	return e.Received
}
