package retryafter

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"pgregory.net/rapid"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/properties"
)

// raExplore is HS-08p's default exploring time; --explore lengthens it.
// A case waits out a real Retry-After of 2–4 s, so the default runs one
// or two.
const raExplore = 4 * time.Second

// retryAfterProperty is HS-08p: the fixed checks send Retry-After: 1 (or a
// date a second ahead); this one draws longer values on 429 and 503, with
// and without RateLimit fields that point earlier, and budgets that do and
// do not leave room for the wait. The target's next dependency call must
// never come before the Retry-After, and its answer must come by the
// budget: waiting is right only when the wait fits.
func retryAfterProperty(ctx context.Context, pc *check.Case) check.Result {
	h := pc.Harness
	cfg := config(h)
	tol, slack := cfg.tolerance(h), cfg.answerSlack()
	want := raPropertyWant(h, tol, slack)
	pcfg := properties.Config{Seed: h.Rand(pc.ID).Uint64(), ShrinkTime: 12 * time.Second, MinCases: 1}
	pcfg = h.Exploring(pcfg, raExplore)
	var ms []*raMachine
	r := h.ExploreEach(pc.ID, pcfg, func(w int, hw *check.Harness) func(*rapid.T) bool {
		m := &raMachine{h: hw, ctx: ctx, id: check.WorkerID(pc.ID, w), tol: tol, slack: slack}
		ms = append(ms, m)
		return m.run
	})
	out := check.Exploration{Want: want, Meaningful: "reached the dependency"}.Result(r, pcfg, ms[r.Worker].last)
	if r.Failed {
		out.Margin, out.Waited = ms[r.Worker].margin, ms[r.Worker].waited
	}
	return out
}

// raPropertyWant is HS-08p's expectation, in the dependency's protocol: a
// gRPC dependency's refusals carry pushback and no RateLimit fields.
func raPropertyWant(h *check.Harness, tol, slack time.Duration) string {
	if h.DependencyGRPC {
		return fmt.Sprintf("for every grpc-retry-pushback-ms of 2000–4000 on a RESOURCE_EXHAUSTED or UNAVAILABLE, and a budget that does or does not leave room for it: no dependency call before the pushback (−%s), an answer by the budget (+%s)",
			check.Ms(tol), check.Ms(slack))
	}
	return fmt.Sprintf("for every Retry-After of 2–4 s on a 429 or 503, with or without RateLimit fields, and a budget that does or does not leave room for it: no dependency call before the Retry-After (−%s), an answer by the budget (+%s)",
		check.Ms(tol), check.Ms(slack))
}

// raMachine runs HS-08p's cases.
type raMachine struct {
	h          *check.Harness
	ctx        context.Context
	id         string
	tol, slack time.Duration
	cases      int
	last       []faults.Entry
	// margin is how far beyond its bound (tolerance included) the latest
	// failing case went: a stall of the runner shorter than it cannot have
	// made a retry early or an answer late by that much.
	margin time.Duration
	// waited is the client's wait in the latest failing case that its
	// answer came too late for (Result.Waited); zero for other failures.
	waited check.Span
	// spent is how many dependency calls the latest case failed; known
	// says that case ran after a heal and showed nothing the refill
	// below could have missed, so spent is all the copy owes.
	spent int
	known bool
}

// wholeHealEvery is how often HS-08p heals a copy whole though the cases
// before ran as they should: a refill pays only the calls a fault
// answered, so anything else a throttle charged cannot pile up past it.
const wholeHealEvery = 8

// streak is how many successes in a row heal the copy before a case: the
// whole flush (Config.BreakerFlush) first, every wholeHealEvery cases,
// after a case that did not run or got no retry though its budget left
// room, and always when the user set the flush; otherwise what the last
// case's failed calls cost a retry throttle (RetryPolicy.Refill). A heal
// is 36 operations for the reference's declared policy and a refill after
// one failed call 10, so the copy spends its time on cases, not healing.
func (m *raMachine) streak() int {
	whole := config(m.h).breakerFlush(m.h)
	if !m.known || config(m.h).BreakerFlush > 0 || m.cases%wholeHealEvery == 1 {
		return whole
	}
	return min(m.h.Policy.Retry.Refill(m.spent), whole)
}

// run is one case: one request whose first effectful dependency call is
// answered with a drawn refusal. It reports whether the request reached
// the dependency.
func (m *raMachine) run(t *rapid.T) bool {
	h := m.h
	m.cases++
	c := h.NewCase(m.ctx, fmt.Sprintf("%s-%d", m.id, m.cases))
	defer c.Done(m.ctx)
	status := rapid.SampledFrom([]int{http.StatusServiceUnavailable, http.StatusTooManyRequests}).Draw(t, "status")
	secs := rapid.IntRange(2, 4).Draw(t, "Retry-After (s)")
	// A gRPC dependency's pushback has no RateLimit fields beside it.
	rateLimit := !h.DependencyGRPC && rapid.Bool().Draw(t, "RateLimit fields resetting at once")
	fits := rapid.Bool().Draw(t, "the budget leaves room for the wait")
	ra := time.Duration(secs) * time.Second
	budget := ra - 500*time.Millisecond
	if fits {
		budget = ra + 1500*time.Millisecond
	}
	budget = min(budget, h.Conventions.BudgetCap())
	hd := map[string]string{"Retry-After": strconv.Itoa(secs)}
	if rateLimit {
		hd["RateLimit"], hd["RateLimit-Policy"] = `"dep";r=0;t=0`, `"dep";q=10;w=1`
	}
	what := fmt.Sprintf("a %d with Retry-After: %d", status, secs)
	if rateLimit {
		what += " and a RateLimit reset of 0"
	}
	f, what, err := raRefusal(h, status, hd, what)
	if err != nil {
		t.Fatalf("%v", err)
	}
	o, err := raDepCaseHealed(m.ctx, c, 1, budget, func() faults.Fault { return f }, m.streak())
	// A retry missing where the budget had room may be a throttle the
	// refills left short: the next case starts from a whole heal.
	m.known, m.spent = err == nil && (o.next != nil || budget <= ra || o.faulted == nil), o.failedCalls()
	if err != nil {
		t.Skipf("the case could not run: %v", err)
	}
	m.last = o.evidence
	next := "no further dependency call"
	if o.next != nil {
		next = fmt.Sprintf("the next call %s after it", check.Ms(o.gap()))
	}
	t.Logf("a budget of %s; the dependency answered %s; %s; the client got %s after %s", check.Ms(budget), what, next, check.Describe(o.reply.Reply), check.Ms(o.reply.Took))
	if o.faulted == nil {
		return false
	}
	m.margin, m.waited = 0, check.Span{}
	if o.next != nil && o.gap()+m.tol < ra {
		m.margin = ra - o.gap() - m.tol
		t.Fatalf("the next dependency call came %s after %s", check.Ms(o.gap()), what)
	}
	if r := o.reply; r.Err != nil || r.Took > budget+m.slack {
		// An error past the budget (the client's timeout) is late by as
		// much as an answer would be; one before it decides by no time.
		if r.Took > budget+m.slack {
			m.margin = r.Took - budget - m.slack
			m.waited = check.Span{From: r.Sent, To: r.Sent.Add(r.Took)}
		}
		t.Fatalf("the client's answer (%s) came after %s, past its budget of %s", check.Describe(r.Reply), check.Ms(r.Took), check.Ms(budget))
	}
	return true
}
