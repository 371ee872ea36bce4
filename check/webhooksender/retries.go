package webhooksender

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// retriedAfter500 (WS-03): an event whose first delivery is answered 500
// is delivered again.
func retriedAfter500(ctx context.Context, s *scase) check.Result {
	return retried(ctx, s, "500", internalError)
}

// retriedAfterReset (WS-03b): an event whose first delivery's connection
// is reset is delivered again.
func retriedAfterReset(ctx context.Context, s *scase) check.Result {
	return retried(ctx, s, "a connection reset", faults.Reset{})
}

// retriedAfterTimeout (WS-03c): an event whose first delivery the
// endpoint holds without answering is abandoned after the declared attempt
// timeout and delivered again. The hold ends a window after the timeout,
// so a sender that never gives up is seen to have made one attempt.
func retriedAfterTimeout(ctx context.Context, s *scase) check.Result {
	least := s.p.AttemptTimeout + s.p.Wait(1)
	hold := s.p.AttemptTimeout + s.window(1)
	if bad := s.trigger(ctx, 1, faults.Blackhole{Timeout: hold}); bad != "" {
		return check.Inconclusive("%s", bad)
	}
	as := s.await(ctx, hold+s.cfg.grace(), count(2)) // the held attempt is journaled when it ends
	what := fmt.Sprintf("no answer (held past the declared attempt timeout %s)", s.p.AttemptTimeout)
	return judgeRetried(as, what, least, hold)
}

// retried fails the event's first delivery with fault (what names it) and
// judges that a second attempt follows within the window after the first.
func retried(ctx context.Context, s *scase, what string, fault faults.Fault) check.Result {
	if bad := s.trigger(ctx, 1, fault); bad != "" {
		return check.Inconclusive("%s", bad)
	}
	w := s.window(1)
	as := s.await(ctx, w, count(2))
	return judgeRetried(as, what, s.p.Wait(1), w)
}

// judgeRetried passes when as holds a retry; least is the soonest the
// declared policy retries after the first attempt began, waited how long
// after it the endpoint waited for one.
func judgeRetried(as []attempt, what string, least, waited time.Duration) check.Result {
	want := fmt.Sprintf("a retry within %s of a first attempt answered with %s (the declared %s, then twice the wait and grace)", waited, what, least)
	switch {
	case len(as) == 0:
		return check.Inconclusive("no delivery of the event reached the endpoint within %s of the trigger", waited)
	case len(as) == 1:
		r := check.Fail(want, fmt.Sprintf("1 attempt, answered %s; none followed", describe(as[0])), evidence(as)...)
		r.Margin = waited - least // how far past the declared retry the endpoint waited
		return r
	}
	gap := as[1].at.Sub(as[0].at)
	obs := fmt.Sprintf("attempt 2 came %s after the first", ms(gap))
	if gap > waited {
		// Only the endpoint's giving up (a held attempt closed) let it go.
		r := check.Fail(want, obs+", after the endpoint stopped waiting for one", evidence(as)...)
		r.Margin = gap - waited
		return r
	}
	return check.Pass(want, obs, evidence(as)...)
}

// backoff (WS-04): an event whose first deliveries fail (three, or as
// many as the declared attempts leave a retry after) waits before each
// retry at least the declared backoff, less the slack.
func backoff(ctx context.Context, s *scase) check.Result {
	k := min(3, s.p.MaxAttempts-1)
	if bad := s.trigger(ctx, k, internalError); bad != "" {
		return check.Inconclusive("%s", bad)
	}
	as := s.await(ctx, s.window(k), count(k+1))
	if len(as) < 2 {
		return check.Inconclusive("%d delivery of the event: no retry to time (WS-03 judges whether it retries)", len(as))
	}
	return judgeBackoff(as, s.p.Wait, s.Slack())
}

// judgeBackoff passes when each gap between attempts is at least the
// declared wait before that retry less slack; a failure's margin is the
// largest shortfall past that bound.
func judgeBackoff(as []attempt, wait func(n int) time.Duration, slack time.Duration) check.Result {
	gs := gaps(as)
	var parts []string
	var want []string
	short := time.Duration(0)
	for i, g := range gs {
		w := wait(i + 1)
		want = append(want, ms(w))
		parts = append(parts, ms(g))
		if over := (w - slack) - g; over > short {
			short = over
		}
	}
	exp := fmt.Sprintf("retries at least %s after the attempt before (the declared backoff), less a slack of %s", strings.Join(want, ", "), ms(slack))
	obs := fmt.Sprintf("retries came %s after the attempt before", strings.Join(parts, ", "))
	if short > 0 {
		r := check.Fail(exp, obs, evidence(as)...)
		r.Margin = short
		return r
	}
	return check.Pass(exp, obs, evidence(as)...)
}

// bounded (WS-05): an event whose every delivery fails is attempted the
// declared max attempts at most; the endpoint waits a window past each
// attempt for one more.
func bounded(ctx context.Context, s *scase) check.Result {
	most := s.p.MaxAttempts
	if bad := s.trigger(ctx, 0, internalError); bad != "" {
		return check.Inconclusive("%s", bad)
	}
	var as []attempt
	for {
		// Wait past attempt n for attempt n+1, as long as the declared
		// backoff after n allows, until one too many came.
		n := len(as)
		next := s.await(ctx, s.window(max(n, 1)), count(n+1))
		as = next
		if len(as) <= n || len(as) > most || ctx.Err() != nil {
			break
		}
	}
	return judgeBound(as, most, s.window(most))
}

// judgeBound passes when as holds max attempts, none more, the endpoint
// having waited waited past the last; fewer leave the bound unreached.
func judgeBound(as []attempt, max int, waited time.Duration) check.Result {
	want := fmt.Sprintf("at most %d attempts of an event whose every delivery is answered 500 (none more within %s of the last)", max, waited)
	obs := fmt.Sprintf("%d attempts", len(as))
	switch {
	case len(as) > max:
		return check.Fail(want, obs, evidence(as)...).Untimed()
	case len(as) < max:
		return check.Inconclusive("%s, fewer than the declared %d: the sender gave up or waited longer than %s, so the bound was not reached", obs, max, waited)
	}
	return check.Pass(want, obs, evidence(as)...)
}

// describe is what the endpoint's proxy answered an attempt.
func describe(a attempt) string {
	if a.status == 0 {
		return "no status (" + a.entry.Outcome + ")"
	}
	return fmt.Sprint(a.status)
}

func ms(d time.Duration) string { return d.Round(time.Millisecond).String() }
