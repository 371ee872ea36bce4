package webhooksender

import (
	"context"
	"fmt"
	"strings"

	"github.com/resilcheck/resilcheck/check"
)

// failedTwice has the endpoint answer an event's first deliveries 500 (two,
// or as many as the declared attempts leave a retry after) and accept the
// next, and returns the attempts, or why there are fewer than two.
func failedTwice(ctx context.Context, s *scase) ([]attempt, string) {
	k := min(2, s.p.MaxAttempts-1)
	if bad := s.trigger(ctx, k, internalError); bad != "" {
		return nil, bad
	}
	as := s.await(ctx, s.window(k), count(k+1))
	if len(as) < 2 {
		return nil, fmt.Sprintf("%d delivery of the event within %s of the last: no retry to judge (WS-03 judges whether it retries)", len(as), s.window(1))
	}
	return as, ""
}

// sameID (WS-01): an event whose first deliveries fail is delivered again
// with the webhook-id of its first attempt.
func sameID(ctx context.Context, s *scase) check.Result {
	as, bad := failedTwice(ctx, s)
	if bad != "" {
		return check.Inconclusive("%s", bad)
	}
	return judgeSameID(as)
}

// judgeSameID passes when every attempt carries the first's non-empty
// webhook-id.
func judgeSameID(as []attempt) check.Result {
	ids := make([]string, len(as))
	for i, a := range as {
		ids[i] = fmt.Sprintf("%q", a.id)
	}
	want := "every attempt with the first attempt's webhook-id"
	obs := fmt.Sprintf("%d attempts with webhook-id %s", len(as), strings.Join(ids, ", "))
	for _, a := range as {
		if a.id == "" || a.id != as[0].id {
			return check.Fail(want, obs, evidence(as)...).Untimed()
		}
	}
	return check.Pass(want, obs, evidence(as)...)
}

// signed (WS-02): every attempt of an event whose first deliveries fail
// carries a Standard Webhooks signature that verifies over its id, its own
// timestamp and the body.
func signed(ctx context.Context, s *scase) check.Result {
	as, bad := failedTwice(ctx, s)
	if bad != "" {
		return check.Inconclusive("%s", bad)
	}
	var body []byte
	if s.p.Body != nil {
		body, _ = s.p.Body(as[0].digest)
	}
	if body == nil {
		return check.Inconclusive("the endpoint never received the event's body whole (%d attempts): nothing to verify signatures over", len(as))
	}
	return judgeSigned(as, s.p.Key, body)
}

// judgeSigned passes when each attempt's signature verifies with key over
// body.
func judgeSigned(as []attempt, key, body []byte) check.Result {
	want := "a valid webhook-signature on every attempt"
	for i, a := range as {
		if why := verified(a, key, body); why != "" {
			return check.Fail(want, fmt.Sprintf("attempt %d of %d: %s", i+1, len(as), why), evidence(as)...).Untimed()
		}
	}
	return check.Pass(want, fmt.Sprintf("%d attempts, each signed validly over its own timestamp", len(as)), evidence(as)...)
}
