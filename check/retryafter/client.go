package retryafter

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/headers"
	"github.com/resilcheck/resilcheck/reports"
)

// raHonoursSeconds: the dependency's first answer is 503 with
// Retry-After: 1; the target's next call must come at least 1 s later.
func raHonoursSeconds(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	f, what, err := raRefusal(h, http.StatusServiceUnavailable, map[string]string{"Retry-After": "1"}, "a 503 with Retry-After: 1")
	if err != nil {
		return check.Inconclusive("%v", err)
	}
	o, err := raDepCase(ctx, c, 1, config(h).budget(), func() faults.Fault { return f })
	return raJudgeWait(c, o, err, what, time.Second, time.Time{})
}

// raPrecedence: the dependency's first answer is 429 with Retry-After: 1
// and a RateLimit reset of 0 s; Retry-After takes precedence (RL-10).
func raPrecedence(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	o, err := raDepCase(ctx, c, 1, config(h).budget(), func() faults.Fault {
		return raAbort(http.StatusTooManyRequests, map[string]string{
			"Retry-After": "1", "RateLimit": `"dep";r=0;t=0`, "RateLimit-Policy": `"dep";q=10;w=1`,
		})
	})
	return raJudgeWait(c, o, err, `a 429 with Retry-After: 1 and RateLimit: "dep";r=0;t=0`, time.Second, time.Time{})
}

// raDateForms are the three HTTP-date formats a recipient must accept.
var raDateForms = []struct{ name, layout string }{
	{"IMF-fixdate", headers.IMFFixdate},
	{"rfc850", headers.RFC850Date},
	{"asctime", headers.ASCTimeDate},
}

// raHonoursDates: for each HTTP-date format, the dependency's first answer
// (429 or 503, drawn) carries Date: S and Retry-After: S+1 s; the next call
// must not come before S+1 s.
func raHonoursDates(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	tol := config(h).tolerance(h)
	want := fmt.Sprintf("for each form, the next call no earlier than the Retry-After date (1 s after the Date sent with it) −%s", check.Ms(tol))
	var seen []string
	var ev []faults.Entry
	var failed bool
	var margin time.Duration // the farthest past its bound of the failures (raJudgeWait)
	for _, f := range raDateForms {
		status := []int{http.StatusServiceUnavailable, http.StatusTooManyRequests}[c.IntN(2)]
		var date, until time.Time
		o, err := raDepCase(ctx, c, 1, config(h).budget(), func() faults.Fault {
			date = raAlignedSecond(ctx)
			until = date.Add(time.Second)
			return raAbort(status, map[string]string{"Date": date.Format(headers.IMFFixdate), "Retry-After": until.Format(f.layout)})
		})
		ev = append(ev, o.evidence...)
		what := fmt.Sprintf("%d with Retry-After %q", status, until.Format(f.layout))
		switch res := raJudgeWait(c, o, err, what, 0, until); res.Status {
		case reports.StatusPass:
			seen = append(seen, fmt.Sprintf("%s: next call %s after the date, %s after the answer",
				f.name, check.Ms(o.next.Received.Sub(until)), check.Ms(o.gap())))
		case reports.StatusFail:
			failed = true
			margin = max(margin, res.Margin)
			seen = append(seen, f.name+": "+res.Observed)
		default:
			return res
		}
	}
	if failed {
		return early(check.Fail(want, strings.Join(seen, "; "), ev...), margin)
	}
	return check.Pass(want, strings.Join(seen, "; "), ev...)
}

// early is res with how far past its bound it came as its margin.
func early(res check.Result, by time.Duration) check.Result {
	res.Margin = by
	return res
}

// raJudgeWait holds the call after the faulted one to a minimum gap after
// the faulted answer, and to notBefore when set (wall clock).
func raJudgeWait(c *check.Case, o raDepOutcome, err error, what string, minGap time.Duration, notBefore time.Time) check.Result {
	tol := config(c.Harness).tolerance(c.Harness)
	want := fmt.Sprintf("after %s the next dependency call comes no earlier than %s (−%s)", what, check.Ms(minGap), check.Ms(tol))
	if !notBefore.IsZero() {
		want = fmt.Sprintf("after %s the next dependency call comes no earlier than that date (−%s)", what, check.Ms(tol))
	}
	switch {
	case err != nil:
		return check.Inconclusive("%v", err)
	case o.faulted == nil:
		return check.Inconclusive("the target made no dependency call to answer with %s (client got %s)", what, check.Describe(o.reply.Reply))
	case o.next == nil:
		return check.Inconclusive("the target made no further dependency call after %s (client got %s); nothing to time: a target that does not retry passes vacuously",
			what, check.Describe(o.reply.Reply))
	}
	gap := o.gap()
	// A stall can only shrink a measured gap by its length (the answer's
	// end journaled late), so how early the call came is the margin.
	if gap+tol < minGap {
		return early(check.Fail(want, fmt.Sprintf("the next call came %s after %s", check.Ms(gap), what), o.evidence...), minGap-gap-tol)
	}
	if !notBefore.IsZero() && o.next.Received.Add(tol).Before(notBefore) {
		return early(check.Fail(want, fmt.Sprintf("the next call came %s after %s, %s before its date",
			check.Ms(gap), what, check.Ms(notBefore.Sub(o.next.Received))), o.evidence...), notBefore.Sub(o.next.Received)-tol)
	}
	return check.Pass(want, fmt.Sprintf("the next call came %s after %s; the client got %s", check.Ms(gap), what, check.Describe(o.reply.Reply)), o.evidence...)
}

// raInvalidFallsBack: the dependency keeps answering 503 with a malformed
// Retry-After (two drawn values, one case each); the target must retry on
// its normal backoff: at least one retry, each within the declared
// backoff's bound for its index (unbounded when none is declared), no more
// than StormLimit calls.
func raInvalidFallsBack(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	cfg, r := config(h), h.Policy.Retry
	tol := cfg.tolerance(h)
	want := fmt.Sprintf("the value is ignored: a retry comes, each within the declared backoff's bound (+%s) of the previous answer, at most %d calls",
		check.Ms(tol), cfg.stormLimit(h))
	if !r.Formula() {
		want = fmt.Sprintf("the value is ignored: a retry comes, at most %d calls (no backoff declared, so gaps are not bounded)", cfg.stormLimit(h))
	}
	values := cfg.invalidValues()
	picked := []string{values[c.IntN(len(values))]}
	if len(values) > 1 {
		i := c.IntN(len(values) - 1)
		if values[i] == picked[0] {
			i = len(values) - 1
		}
		picked = append(picked, values[i])
	}
	budget := cfg.budget()
	if _, hi0, ok := r.WaitBounds(0); ok {
		budget = max(budget, 2*hi0+time.Second) // room for the first retry
	}
	var seen []string
	var ev []faults.Entry
	for _, v := range picked {
		o, err := raDepCase(ctx, c, 0, budget, func() faults.Fault {
			return raAbort(http.StatusServiceUnavailable, map[string]string{"Retry-After": v})
		})
		if err != nil {
			return check.Inconclusive("%v", err)
		}
		ev = append(ev, o.evidence...)
		calls := o.requestCalls()
		switch {
		case len(calls) == 0:
			return check.Inconclusive("the target made no dependency call (client got %s)", check.Describe(o.reply.Reply))
		case len(calls) > cfg.stormLimit(h):
			return early(check.Fail(want, fmt.Sprintf("Retry-After %q: %d calls for one request", v, len(calls)), ev...), check.NotTimed)
		case len(calls) == 1:
			return raNoRetry(ctx, c, want, v, o, ev)
		}
		var gaps []string
		for i := 1; i < len(calls); i++ {
			gap := calls[i].Received.Sub(calls[i-1].Finished)
			if _, hi, ok := r.WaitBounds(i - 1); ok && gap > hi+tol {
				return early(check.Fail(want, fmt.Sprintf("Retry-After %q: call %d came %s after the previous answer, beyond the declared backoff's %s",
					v, i+1, check.Ms(gap), check.Ms(hi)), ev...), gap-hi-tol)
			}
			gaps = append(gaps, check.Ms(gap))
		}
		seen = append(seen, fmt.Sprintf("%q: %d calls, gaps %s, client got %s", v, len(calls), strings.Join(gaps, ", "), check.Describe(o.reply.Reply)))
	}
	return check.Pass(want, strings.Join(seen, "; "), ev...)
}

// raNoRetry tells "an invalid value stopped the retries" from "the target
// never retries a 503": it repeats the case without any Retry-After.
func raNoRetry(ctx context.Context, c *check.Case, want, v string, o raDepOutcome, ev []faults.Entry) check.Result {
	base, err := raDepCase(ctx, c, 0, config(c.Harness).budget(), func() faults.Fault {
		return raAbort(http.StatusServiceUnavailable, nil)
	})
	if err != nil {
		return check.Inconclusive("%v", err)
	}
	if n := len(base.requestCalls()); n > 1 {
		return check.Fail(want, fmt.Sprintf("no retry after a 503 with Retry-After %q (client got %s), yet %d calls after a 503 without one",
			v, check.Describe(o.reply.Reply), n), append(ev, base.evidence...)...)
	}
	return check.NotApplicable("the target does not retry a dependency's 503 at all; there is no backoff to fall back to")
}

// requestCalls returns the effect calls made for the case's one request:
// those the dependency received while the client waited for the answer,
// and any later one carrying the faulted call's key (a retry the target
// left running after it answered). Time, not the key, ties a call to the
// request, since a target may mint a fresh key per attempt.
func (o raDepOutcome) requestCalls() []faults.Entry {
	if o.faulted == nil {
		return nil
	}
	key := o.faulted.Header(o.keyHeader)
	var out []faults.Entry
	for _, e := range o.calls {
		during := !e.Received.Before(o.reply.sent) && !e.Received.After(o.reply.at)
		if during || key != "" && e.Header(o.keyHeader) == key {
			out = append(out, e)
		}
	}
	return out
}

// raHugeIsCapped: the dependency's first answer is 503 with a huge
// Retry-After; the client, with a drawn budget, must still get an answer by
// that budget plus AnswerSlack, whether the target capped the wait or gave up.
func raHugeIsCapped(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	cfg := config(h)
	budget := time.Second + time.Duration(c.IntN(1000))*time.Millisecond
	huge := cfg.hugeValue()
	f, what, err := raRefusal(h, http.StatusServiceUnavailable, map[string]string{"Retry-After": huge}, "Retry-After: "+huge)
	if err != nil {
		return check.Inconclusive("the huge value (retryafter.Config.HugeValue): %v", err)
	}
	want := fmt.Sprintf("with a budget of %s, an answer within %s (budget + %s) although the dependency said %s",
		check.Ms(budget), check.Ms(budget+cfg.answerSlack()), check.Ms(cfg.answerSlack()), what)
	o, err := raDepCase(ctx, c, 1, budget, func() faults.Fault { return f })
	if err != nil {
		return check.Inconclusive("%v", err)
	}
	r := o.reply
	// The client's own wait, timed by the runner: weighed as judgeTimeout
	// (deadlines) weighs it.
	waited := check.Span{From: r.Sent, To: r.Sent.Add(r.Took)}
	switch {
	case o.faulted == nil:
		return check.Inconclusive("the target made no dependency call (client got %s)", check.Describe(r.Reply))
	case r.Err != nil:
		res := early(check.Fail(want, fmt.Sprintf("no answer: %v after %s", r.Err, check.Ms(r.Took)), o.evidence...), r.Took-budget-cfg.answerSlack())
		res.Waited = waited
		return res
	case r.Took > budget+cfg.answerSlack():
		res := early(check.Fail(want, fmt.Sprintf("answered %d only after %s", r.Status, check.Ms(r.Took)), o.evidence...), r.Took-budget-cfg.answerSlack())
		res.Waited = waited
		return res
	}
	how := "gave up without calling again"
	if o.next != nil {
		// A wait the service capped and a tier above it re-sending the
		// request look alike at the dependency: say what was seen.
		asked := "the Retry-After"
		if h.DependencyGRPC {
			asked = "the pushback"
		}
		how = fmt.Sprintf("called the dependency again %s later, long before %s (a wait the target capped, or a tier in front of it re-sending the request)", check.Ms(o.gap()), asked)
	}
	if v := r.Header.Get("Retry-After"); v != "" {
		how += fmt.Sprintf(", and passed Retry-After %q on", v)
	}
	return check.Pass(want, fmt.Sprintf("answered %d after %s; the target %s", r.Status, check.Ms(r.Took), how), o.evidence...)
}
