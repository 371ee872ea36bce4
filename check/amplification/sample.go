package amplification

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"sync"
	"time"
	"weak"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// backoffSample is what rounds of simultaneous failures showed about the
// target's waits between attempts at the dependency. A wait is measured
// from the moment the proxy finished the failed answer to the moment the
// next attempt with the same forwarded key arrived, so it includes the
// target's own processing (positive noise only).
type backoffSample struct {
	waits  [2][]time.Duration // by retry index: the wait before attempt 2, and before attempt 3
	chains [][]time.Duration  // per logical request, its waits in order (BO-03)
	fleets []time.Duration    // the first waits of requests that failed together (BO-08)
	rounds int
	// failed counts the calls the rounds failed and unretried those of them
	// the target never retried; refilled is the successes sent before each
	// round (the largest).
	failed, unretried, refilled int
	took                        time.Duration // how long the rounds took
	capped                      bool          // the rounds stopped at amplification.Config.SampleWithin
	// unkeyed is set when the target forwards no key: requests then run one
	// at a time and no fleet is sampled.
	unkeyed bool
	calls   []faults.Entry
	reason  string // why the sample cannot be judged; "" when it can
	// waitSpans and fleetSpans are when each of waits and fleets ran,
	// from the failed answer to the retry; stalled is how late a stall
	// watch over the rounds saw the runner at worst between two instants
	// (check.Stalls.Worst; nil: never), so a judge can keep the waits no
	// stall of the runner spread (calm).
	waitSpans  [2][]check.Span
	fleetSpans []check.Span
	stalled    func(from, to time.Time) time.Duration
	// resolution is how much longer than stalled says a stall may have
	// been (check.Stalls.Resolution).
	resolution time.Duration
}

// sampleWatchEvery is how often the sample's stall watch wakes: it sees a
// stall as at least its length less this, and the judges rule out stalls
// of a band or a bucket, 10 ms for a 50 ms first wait.
const sampleWatchEvery = time.Millisecond

// calm returns the waits of retry i (i < 2), or the fleets' first waits
// (i < 0), during which the runner was never late by more than limit: no
// stall spread them, or stamped them together, by more than that. The
// watch saw each stall as up to its resolution shorter than it was.
func (s *backoffSample) calm(i int, limit time.Duration) []time.Duration {
	if limit -= s.resolution; limit <= 0 {
		return nil
	}
	ws, spans := s.fleets, s.fleetSpans
	if i >= 0 {
		ws, spans = s.waits[i], s.waitSpans[i]
	}
	var out []time.Duration
	for k, w := range ws {
		if k < len(spans) && (s.stalled == nil || s.stalled(spans[k].From, spans[k].To) <= limit) {
			out = append(out, w)
		}
	}
	return out
}

// minWaits is the fewest waits of one retry index worth judging.
const minWaits = 10

// backoffMemo shares the samples among the backoff checks of a run, so the
// failure rounds (a couple of seconds) are driven once for all; entries go
// with their Harness.
var backoffMemo sync.Map // backoffKey → *backoffSample

// backoffKey names a run's n-th sample: for each run of a check (a
// doubted verdict's reruns measure afresh: Case.Rerun), the first, the one
// that confirms a failure, and the one that decides when those two
// disagree (see sampledBackoff).
type backoffKey struct {
	h weak.Pointer[check.Harness]
	n int
}

// backoffSample returns the run's first sample, driving the rounds on
// first use.
func takeBackoffSample(ctx context.Context, h *check.Harness, c *check.Case) *backoffSample {
	return takeBackoffSampleN(ctx, h, c, 0)
}

// backoffSampleN returns the n-th sample of c's run of its check (0 to
// samplesPerRun-1), driving its rounds on first use.
func takeBackoffSampleN(ctx context.Context, h *check.Harness, c *check.Case, n int) *backoffSample {
	k := backoffKey{weak.Make(h), samplesPerRun*c.Rerun() + n}
	if v, ok := backoffMemo.Load(k); ok {
		return v.(*backoffSample)
	}
	s := sampleBackoff(ctx, c)
	if ctx.Err() == nil {
		backoffMemo.Store(k, s)
		runtime.AddCleanup(h, func(k backoffKey) { backoffMemo.Delete(k) }, k)
	}
	return s
}

// sampleBackoff drives BackoffRounds rounds. One round in three fails the
// first attempts of 4 concurrent requests (a small fleet failing together);
// the others fail 2 requests twice each (a second retry). A target that
// forwards no key gets rounds of one request failed twice instead. After
// each round, successes in a row earn back what its failures cost a retry
// throttle at the declared budget ratio (RetryPolicy.refill: 40 for a
// round's 4 failures at 0.1), so neither a breaker nor a throttle refuses
// the next round's retries; a failed attempt that is still never retried
// is counted and reported.
func sampleBackoff(ctx context.Context, c *check.Case) *backoffSample {
	s := &backoffSample{}
	rounds, within := config(c.Harness).backoffRounds(), config(c.Harness).sampleWithin()
	if est := roundWaits(c.Harness, true); est > within {
		s.reason = fmt.Sprintf("the declared first wait (up to %s) exceeds the sampling bound (amplification.Config.SampleWithin %s): not sampled", est, within)
		return s
	}
	if err := c.Heal(ctx, c.Harness.Policy.Retry.HealStreak(), c.Harness.HealWithin()); err != nil {
		s.reason = "before sampling: " + err.Error()
		return s
	}
	start := time.Now()
	watch := check.WatchStallsEvery(sampleWatchEvery)
	defer func() {
		st := watch()
		s.took, s.stalled, s.resolution = time.Since(start), st.Worst, st.Resolution()
	}()
	for i := 0; i < rounds; i++ {
		fleet := !s.unkeyed && i%3 == 0
		if s.rounds > 0 && time.Since(start)+roundWaits(c.Harness, fleet) > within {
			s.capped = true
			break
		}
		n, first := 2, 4
		switch {
		case s.unkeyed:
			n, first = 1, 2 // one request at a time: its calls are the only ones
		case fleet:
			n = 4
		}
		_, remove, err := c.Rule(c.Harness.Dependency, c.EffectMatch(first), c.Harness.Refusal(http.StatusServiceUnavailable, 0))
		if err != nil {
			s.reason = err.Error()
			return s
		}
		mark := rbMark(c)
		sendConcurrently(ctx, c, n)
		c.Harness.Settle(ctx)
		remove()
		calls := effectCalls(c, mark)
		s.calls = append(s.calls, calls...)
		groups := groupByKey(c, calls)
		switch {
		case s.unkeyed:
			groups = [][]faults.Entry{calls}
		case slices.ContainsFunc(calls, func(e faults.Entry) bool { return e.Header(c.Harness.Conventions.DependencyKeyName()) == "" }):
			// Calls without a key cannot be told apart when requests overlap:
			// start over with one request per round.
			s.unkeyed, s.waits, s.chains, s.fleets, s.rounds, s.failed, s.unretried, i = true, [2][]time.Duration{}, nil, nil, 0, 0, 0, -1
			s.waitSpans, s.fleetSpans = [2][]check.Span{}, nil
			continue
		}
		failed := s.add(groups, fleet)
		s.rounds++
		refill := c.Harness.Policy.Retry.Refill(failed)
		s.refilled = max(s.refilled, refill)
		if err := c.Heal(ctx, refill, c.Harness.HealWithin()); err != nil {
			s.reason = fmt.Sprintf("after round %d: %v", i+1, err)
			return s
		}
		if ctx.Err() != nil {
			s.reason = "interrupted"
			return s
		}
	}
	if len(s.waits[0]) < minRangeWaits {
		s.reason = fmt.Sprintf("only %d retries after %d rounds of failed first attempts (%d calls): the target hardly retries, nothing to judge (%s)",
			len(s.waits[0]), s.rounds, len(s.calls), s.starved())
	}
	return s
}

// summary says what was sampled: rounds, time, waits per retry index, and
// that later retries were not.
func (s *backoffSample) summary() string {
	out := fmt.Sprintf("%d rounds in %s", s.rounds, s.took.Round(100*time.Millisecond))
	if s.capped {
		out += " (stopped at the sampling bound)"
	}
	out += fmt.Sprintf("; %d first and %d second waits sampled, later retries not", len(s.waits[0]), len(s.waits[1]))
	if s.unretried > 0 {
		out += "; " + s.starved()
	}
	return out
}

// starved says how many failed attempts were never retried, though each
// round began with the budget refilled.
func (s *backoffSample) starved() string {
	return fmt.Sprintf("%d of %d failed attempts never retried, after %d successes in a row before each round refilled a retry budget",
		s.unretried, s.failed, s.refilled)
}

// roundWaits is the longest a round holds its requests in declared waits:
// one first wait for a fleet round, a first and a second for the others;
// zero when no backoff is declared (the time bound is then checked between rounds).
func roundWaits(h *check.Harness, fleet bool) time.Duration {
	_, hi0, ok := h.Policy.Retry.WaitBounds(0)
	if !ok || fleet {
		return hi0
	}
	_, hi1, _ := h.Policy.Retry.WaitBounds(1)
	return hi0 + hi1
}

// sampleTimeout bounds one sampled request: 5 s, or the two declared waits
// a round holds a request for plus 3 s when longer; undeclared, the
// target's own budget plus 1 s when longer.
func sampleTimeout(h *check.Harness) time.Duration {
	r := h.Policy.Retry
	_, hi0, ok := r.WaitBounds(0)
	if !ok {
		return outageTimeout(h)
	}
	_, hi1, _ := r.WaitBounds(1)
	return max(5*time.Second, hi0+hi1+3*time.Second)
}

// add folds the waits of one round's requests (calls grouped per request)
// into the sample: a wait follows every call the round's rule failed. It
// returns how many calls the rule failed.
func (s *backoffSample) add(groups [][]faults.Entry, fleet bool) (failed int) {
	for _, g := range groups {
		var chain []time.Duration
		for _, e := range g {
			if e.Fault != "" {
				failed++
			}
		}
		if n := len(g); n > 0 && g[n-1].Fault != "" {
			s.unretried++
		}
		for j := 0; j+1 < len(g) && g[j].Fault != ""; j++ {
			w := g[j+1].Received.Sub(g[j].Finished)
			span := check.Span{From: g[j].Finished, To: g[j+1].Received}
			chain = append(chain, w)
			if j < len(s.waits) {
				s.waits[j] = append(s.waits[j], w)
				s.waitSpans[j] = append(s.waitSpans[j], span)
			}
			if j == 0 && fleet {
				s.fleets = append(s.fleets, w)
				s.fleetSpans = append(s.fleetSpans, span)
			}
		}
		if len(chain) > 0 {
			s.chains = append(s.chains, chain)
		}
	}
	s.failed += failed
	return failed
}

// concurrent sends n fresh operations at once and returns how many succeeded.
func sendConcurrently(ctx context.Context, c *check.Case, n int) int {
	calls := make([]check.Call, n)
	for i := range calls {
		calls[i] = check.Call{Key: c.Key(), Tenant: c.Tenant(), Amount: c.Amount(), Timeout: sampleTimeout(c.Harness)}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for _, cl := range calls {
		wg.Go(func() {
			if c.Harness.Succeeded(c.Harness.Send(ctx, cl)) {
				mu.Lock()
				ok++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return ok
}
