package amplification

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"pgregory.net/rapid"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/properties"
)

// rbExplore is RB-01p's default exploring time: a few cases of one to
// three requests, so a certification stays fast; --explore lengthens it.
const rbExplore = 3 * time.Second

// rbPropertyDeadline is the budget each request of RB-01p carries: long
// enough for a retry after a Retry-After of 1 s, short enough that a hang
// costs little.
const rbPropertyDeadline = 1500 * time.Millisecond

// rbStep is one scripted answer of the dependency to one call.
type rbStep struct {
	name  string
	fault func() faults.Fault
	// failure says the call failed; retryAfter is the wait the answer
	// asks for, 0 if none.
	failure    bool
	retryAfter time.Duration
}

// rbSteps are what the dependency may answer, in its protocol (a gRPC
// dependency refuses with UNAVAILABLE or RESOURCE_EXHAUSTED and asks for a
// wait with grpc-retry-pushback-ms, Harness.Refusal); a script that runs
// out recovers: every later call reaches the dependency unharmed. Costly
// steps (a hang holds the request's whole budget, a Retry-After a second)
// appear once, cheap ones twice, so a few cases cover many mixes.
func rbSteps(h *check.Harness) []rbStep {
	refuse := func(status int, wait time.Duration) rbStep {
		return rbStep{name: h.RefusalText(status, wait), fault: func() faults.Fault { return h.Refusal(status, wait) }, failure: true, retryAfter: wait}
	}
	s503, s429 := refuse(http.StatusServiceUnavailable, 0), refuse(http.StatusTooManyRequests, 0)
	reset := rbStep{name: "reset", fault: func() faults.Fault { return faults.Reset{} }, failure: true}
	slow := rbStep{name: "slow success (200 ms)", fault: func() faults.Fault { return faults.Delay{Duration: 200 * time.Millisecond} }}
	return []rbStep{
		s503, s503, s429, s429, reset, reset, slow,
		refuse(http.StatusServiceUnavailable, time.Second),
		refuse(http.StatusTooManyRequests, time.Second),
		{name: "hang", fault: func() faults.Fault { return faults.Blackhole{} }, failure: true},
	}
}

// retryProperty is RB-01p: random streams of requests, each meeting a
// random script of dependency failures and a recovery, judged request by
// request: attempts within the declared cap, no call after the dependency
// recovered, none before a Retry-After. The retry budget is RB-02's and
// RB-05's, under load: over a few requests in a row, a concurrency budget
// (Envoy's retry_budget, failsafe-go's) never binds by design and
// Finagle's allows 10 retries a second, so a ratio judged here would fail
// correct clients.
func retryProperty(ctx context.Context, pc *check.Case) check.Result {
	h := pc.Harness
	limit := h.Policy.Retry.Attempts()
	want := fmt.Sprintf("for every request: at most %s dependency calls, none after a success it read, none before a Retry-After (−%s)",
		h.Policy.Retry.AttemptsText(), check.Ms(h.Slack()))
	cfg := properties.Config{Seed: h.Rand(pc.ID).Uint64(), ShrinkTime: 6 * time.Second, MinCases: 2}
	cfg = h.Exploring(cfg, rbExplore)
	trouble := &check.Trouble{}
	var ms []*rbMachine
	res := h.ExploreEach(pc.ID, cfg, func(w int, hw *check.Harness) func(*rapid.T) bool {
		m := &rbMachine{h: hw, ctx: ctx, id: check.WorkerID(pc.ID, w), limit: limit, steps: rbSteps(hw), dirty: true, trouble: trouble}
		ms = append(ms, m)
		return m.run
	})
	var requests, calls int
	var wg sync.WaitGroup
	for _, m := range ms {
		requests += m.requests
		calls += m.calls
		if m.dirty {
			// Leave the copy healthy: the check that runs on it next,
			// whichever the scheduler picks, would meet an open breaker.
			wg.Go(func() {
				c := m.h.NewCase(ctx, m.id+"~heal")
				defer c.Done(ctx)
				_ = c.Heal(ctx, m.h.Policy.Retry.HealStreak(), m.h.HealWithin())
			})
		}
	}
	wg.Wait()
	held := fmt.Sprintf(": %d requests, %d dependency calls", requests, calls)
	return check.Exploration{Want: want, Meaningful: "met a failing dependency call", Held: held, Trouble: trouble}.Result(res, cfg, ms[res.Worker].last)
}

// rbMachine runs RB-01p's cases against the target.
type rbMachine struct {
	trouble *check.Trouble // shared by the workers
	h       *check.Harness
	ctx     context.Context
	id      string
	limit   int
	steps   []rbStep // rbSteps(h)
	// dirty says an earlier case made calls fail, so the next starts by
	// healing: a breaker left open would hide the next case's retries.
	dirty           bool
	cases           int // cases run, shrinking included: each gets fresh keys
	requests, calls int
	last            []faults.Entry // the calls of the latest case, its evidence
}

// run is one case: a stream of one to three requests, each with its own
// script. It reports whether some failing answer reached the target.
func (m *rbMachine) run(t *rapid.T) bool {
	h := m.h
	m.cases++
	c := h.NewCase(m.ctx, fmt.Sprintf("%s-%d", m.id, m.cases))
	defer c.Done(m.ctx)
	if m.dirty {
		if err := c.Heal(m.ctx, h.Policy.Retry.HealStreak(), h.HealWithin()); err != nil {
			t.Skipf("the target did not heal before the case: %v", err)
		}
		m.dirty = false
	}
	n := rapid.IntRange(1, 3).Draw(t, "requests")
	m.last = nil
	var meaningful bool
	for i := range n {
		script := rapid.SliceOfN(rapid.SampledFrom(m.steps), 0, 4).Draw(t, fmt.Sprintf("script %d", i+1))
		calls, r := m.request(t, c, script)
		m.requests++
		m.calls += len(calls)
		m.last = append(m.last, calls...)
		t.Logf("request %d: the dependency answers %s; %d calls: %s; the client got %s",
			i+1, scriptText(script), len(calls), m.callsText(calls, script), check.Describe(r))
		if len(calls) > 0 && len(script) > 0 && script[0].failure {
			meaningful, m.dirty = true, true
		}
		m.judge(t, i+1, script, calls)
	}
	return meaningful
}

// request sends one logical request while the dependency follows script,
// one rule per call in order (each takes the first call the rules before it
// left), and returns the request's dependency calls.
func (m *rbMachine) request(t *rapid.T, c *check.Case, script []rbStep) ([]faults.Entry, check.Reply) {
	for _, s := range script {
		if err := c.Fault(m.h.Dependency, c.EffectMatch(1), s.fault()); err != nil {
			m.trouble.Skip(t, "placing the script", err)
		}
	}
	cl := check.Call{Key: c.Key(), Tenant: c.Tenant(), Amount: c.Amount(),
		Header: m.h.BudgetHeader(rbPropertyDeadline), Timeout: rbPropertyDeadline + 3*time.Second}
	r, calls := logicalRequests(m.ctx, c, cl)
	c.Done(m.ctx) // lift the script's leftover rules before the next request
	return calls, r
}

// judge holds one request's calls to the per-request invariants.
func (m *rbMachine) judge(t *rapid.T, n int, script []rbStep, calls []faults.Entry) {
	attempts := m.h.Attempts(calls)
	if len(attempts) > m.limit {
		t.Fatalf("request %d: %s for one logical request, above the attempt cap of %s", n, check.CallCount(calls, attempts), m.h.Policy.Retry.AttemptsText())
	}
	tol := m.h.Slack()
	copies := hedgedCopies(m.h, attempts)
	for i := 1; i < len(calls); i++ {
		if copies[calls[i].ID] || calls[i].Received.Before(calls[i-1].Finished) {
			continue // a copy, not sent after an answer: the hedging suite judges it
		}
		prev := stepAt(script, i-1)
		if !prev.failure && prev.name == "success" {
			t.Fatalf("request %d: call %d came after the dependency had answered call %d with success", n, i+1, i)
		}
		if !prev.failure && readAnswer(calls[i-1], calls[i]) {
			t.Fatalf("request %d: call %d came after the target had read the %s that answered call %d (it sent call %d on the same connection)", n, i+1, prev.name, i, i+1)
		}
		if gap := calls[i].Received.Sub(calls[i-1].Finished); prev.retryAfter > 0 && gap+tol < prev.retryAfter {
			t.Fatalf("request %d: call %d came %s after a %s, before the wait it asked for had passed", n, i+1, check.Ms(gap), prev.name)
		}
	}
}

// hedgedCopies names, by journal ID, the copies in attempts that left on
// the declared hedging schedule: on a busy runner such a copy reaches the
// dependency after the success it raced. A call just after a success, off
// that schedule, is judged like any: it may be a retry after a read answer.
func hedgedCopies(h *check.Harness, attempts [][]faults.Entry) map[string]bool {
	out := map[string]bool{}
	for _, a := range attempts {
		for i := 1; i < len(a); i++ {
			if h.OnHedgeSchedule(a, i) {
				out[a[i].ID] = true
			}
		}
	}
	return out
}

// readAnswer says the target read prev's whole answer before sending
// next: it stayed for the answer and then sent next on the same HTTP/1.x
// connection, which a client reuses only once it has read the response
// before (an attempt that timed out closes its connection, or the late
// answer would be read as the next one's). A retry after a slow success is
// then no timeout's retry. HTTP/2 carries a timed-out stream's successor on
// the same connection, and a new connection proves nothing: neither is
// judged.
func readAnswer(prev, next faults.Entry) bool {
	return strings.HasPrefix(prev.Proto, "HTTP/1.") && next.Proto == prev.Proto &&
		prev.ClientGone.IsZero() && prev.Conn != 0 && next.Conn == prev.Conn && !next.Received.Before(prev.Finished)
}

// stepAt is the script's answer to call i (from 0): past its end, the
// recovered dependency's success.
func stepAt(script []rbStep, i int) rbStep {
	if i < len(script) {
		return script[i]
	}
	return rbStep{name: "success"}
}

func scriptText(script []rbStep) string {
	if len(script) == 0 {
		return "success at once"
	}
	names := make([]string, len(script))
	for i, s := range script {
		names[i] = s.name
	}
	return strings.Join(names, ", ") + ", then recovers"
}

// callsText renders each call as the answer it met. Timings stay out, so a
// replay by seed tells the same story; the evidence has them.
func (m *rbMachine) callsText(calls []faults.Entry, script []rbStep) string {
	parts := make([]string, len(calls))
	for i := range calls {
		parts[i] = stepAt(script, i).name
	}
	return "[" + strings.Join(parts, "; ") + "]"
}
