package clients

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// judgeRetryAfter (CL-02, CL-02a, CL-02f, CL-02r): an attempt that follows
// an answer carrying Retry-After in form comes no earlier than the instant
// it names, less the early slack.
func judgeRetryAfter(form string) func(j *judging) check.Result {
	return func(j *judging) check.Result {
		want := fmt.Sprintf("no attempt earlier than a Retry-After %s allows, less %s", form, j.tol.Early)
		sent, judged, hedges := 0, 0, 0
		var least time.Duration = -1
		for _, r := range j.ran() {
			for i, e := range r.Attempts {
				due, f, ok := retryAfterDue(e.ResponseHeader("Retry-After"), e.Finished)
				if !ok || f != form {
					continue
				}
				sent++
				if i+1 == len(r.Attempts) {
					continue
				}
				// A copy the client's hedge timer may have sent before it
				// read e's answer is no retry after it: the attempt e's
				// Retry-After binds is the first later one that is not.
				k := i + 1
				for k < len(r.Attempts) && j.maybeHedge(e, r.Attempts[k]) {
					hedges++
					k++
				}
				if k == len(r.Attempts) {
					continue
				}
				next := r.Attempts[k]
				judged++
				early := due.Sub(next.Received)
				if early > j.tol.Early {
					return check.Fail(want, fmt.Sprintf("%s: attempt %d came %s before Retry-After: %s allowed", r.id, i+2, early.Round(time.Millisecond), e.ResponseHeader("Retry-After")), e, next)
				}
				if margin := -early; least < 0 || margin < least {
					least = margin
				}
			}
		}
		switch {
		case sent == 0:
			return check.NotApplicable("no answer carried Retry-After as %s", form)
		case judged == 0:
			return check.Inconclusive("the client never retried after a Retry-After %s (%d sent%s): nothing to judge", form, sent, hedgesNote(hedges))
		}
		return check.Pass(want, fmt.Sprintf("%d retries after Retry-After %s, the earliest %s after it allowed%s", judged, form, max(least, 0).Round(time.Millisecond), hedgesNote(hedges)))
	}
}

// maybeHedge says next may be e's hedge, not a retry after e's answer: the
// client declares hedging, next came when the hedge delay after e began
// ran out (no earlier than the early slack allows, no later than that and
// the runner's worst stall meanwhile),
// and either before e was answered or after it by no more than that stall.
// A hedging client arms its timer as an attempt starts and disarms it only
// once it reads the answer; on a busy runner, whose cores its process
// shares, the timer can fire first.
func (j *judging) maybeHedge(e, next faults.Entry) bool {
	if j.policy.HedgeDelay <= 0 {
		return false
	}
	stall := j.worstStall(e.Received, next.Received)
	gap := next.Received.Sub(e.Received)
	if gap < j.policy.HedgeDelay-j.tol.Early || gap > j.policy.HedgeDelay+j.tol.Early+stall {
		return false // no hedge timer fires then
	}
	return next.Received.Sub(e.Finished) <= stall
}

// hedgesNote says how many attempts after a Retry-After were left unjudged
// as possible hedges.
func hedgesNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; %d copies sent by the hedge delay before the client could have read the answer not judged", n)
}

// judgeHugeRetryAfter (CL-03): an operation answered with a Retry-After
// beyond the client's deadline still ends by the deadline, timed from its
// first attempt (its start-up, up to the allowance, not counted).
func judgeHugeRetryAfter(j *judging) check.Result {
	want := fmt.Sprintf("done within the deadline %s (+%s) of the first attempt despite a longer Retry-After", j.policy.Deadline, j.tol.Late)
	var ok []string
	for _, r := range j.ran() {
		huge := false
		for _, e := range r.Attempts {
			if due, _, found := retryAfterDue(e.ResponseHeader("Retry-After"), e.Finished); found && due.Sub(r.clock(j.tol.StartUp)) > j.policy.Deadline {
				huge = true
			}
		}
		if !huge {
			continue
		}
		switch {
		case r.Cut:
			return check.Fail(want, fmt.Sprintf("%s: %s", r.id, j.cutNote(r)), r.Attempts...)
		case r.own(j.tol.StartUp) > j.policy.Deadline+j.tol.Late:
			return check.Fail(want, fmt.Sprintf("%s: %s %s", r.id, outcome(r), j.timed(r)), r.Attempts...)
		}
		ok = append(ok, fmt.Sprintf("%s %s", r.id, j.timed(r)))
	}
	if len(ok) == 0 {
		return check.NotApplicable("no answer carried a Retry-After beyond the deadline %s", j.policy.Deadline)
	}
	return check.Pass(want, strings.Join(ok, ", "))
}

// judgeDeadline (CL-08): every operation ends by the declared deadline,
// timed from its first attempt (its start-up, up to the allowance, not
// counted); a call the harness cut ran past it.
func judgeDeadline(j *judging) check.Result {
	want := fmt.Sprintf("every operation done within %s (+%s) of its first attempt", j.policy.Deadline, j.tol.Late)
	var longest *ScenarioRun
	var startUps []time.Duration
	for _, r := range j.ran() {
		switch {
		case r.Cut:
			return check.Fail(want, fmt.Sprintf("%s: %s", r.id, j.cutNote(r)), r.Attempts...)
		case r.own(j.tol.StartUp) > j.policy.Deadline+j.tol.Late:
			return check.Fail(want, fmt.Sprintf("%s: %s %s", r.id, outcome(r), j.timed(r)), r.Attempts...)
		}
		if longest == nil || r.own(j.tol.StartUp) > longest.own(j.tol.StartUp) {
			longest = r
		}
		startUps = append(startUps, r.StartUp())
	}
	if longest == nil {
		return check.Inconclusive("no scenario ran")
	}
	return check.Pass(want, fmt.Sprintf("the longest, %s, ended %s; start-ups %s to %s, up to %s not counted",
		longest.id, j.timed(longest), slices.Min(startUps).Round(time.Millisecond), slices.Max(startUps).Round(time.Millisecond), j.tol.StartUp))
}

// timed says how long r took by its deadline's clock, and what its
// start-up was.
func (j *judging) timed(r *ScenarioRun) string {
	own, su := r.own(j.tol.StartUp).Round(time.Millisecond), r.StartUp().Round(time.Millisecond)
	switch {
	case len(r.Attempts) == 0:
		return fmt.Sprintf("after %s without an attempt, %s of it past the start-up allowance %s", su, own, j.tol.StartUp)
	case r.StartUp() > j.tol.StartUp:
		return fmt.Sprintf("%s after the start-up allowance %s ran out (its first attempt came after %s)", own, j.tol.StartUp, su)
	}
	return fmt.Sprintf("%s after its first attempt (start-up %s, not counted)", own, su)
}

// cutNote says that the harness cut r at its limit, and how far the call
// had got.
func (j *judging) cutNote(r *ScenarioRun) string {
	limit := "its limit without a deadline"
	if j.policy.Deadline > 0 {
		limit = fmt.Sprintf("the deadline %s + %s", j.policy.Deadline, r.limit-j.policy.Deadline)
	}
	from := "its first attempt"
	if r.StartUp() > j.tol.StartUp {
		from = fmt.Sprintf("the start-up allowance %s", j.tol.StartUp)
	}
	n := len(r.Attempts)
	return fmt.Sprintf("the harness cut the call after %s from %s (%s): still running after %d %s, answered %s",
		r.limit, from, limit, n, plural(n, "attempt"), answers(r.Attempts))
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// judgeBackoff (CL-07): in a run of failures without Retry-After, the
// waits grow. Each wait is taken over the scenario's concurrent instances,
// so a jittered backoff, whose single waits may shrink, is judged by its
// distribution. It fails when the last wait, even divided by
// backoffGrowth and lengthened by the runner's noise, is shorter than the
// first (exact Mann–Whitney, p < evidenceLevel); it passes when the waits
// trend upward over the run (Jonckheere–Terpstra, p < evidenceLevel);
// weaker evidence, as few instances of a full-jitter backoff give, is
// inconclusive.
func judgeBackoff(j *judging) check.Result {
	if p := j.policy.MaxAttempts; p > 0 && p < 3 {
		return check.NotApplicable("the client declares %d attempts: fewer than two waits to compare", p)
	}
	want := fmt.Sprintf("waits that rise, the last not shorter than %.1f times the first (p < %g each way)", backoffGrowth, evidenceLevel)
	seen := map[string]bool{}
	for _, r := range j.ran() {
		id := r.Scenario.ID
		if seen[id] {
			continue
		}
		seen[id] = true
		var series [][]time.Duration
		var ev []faults.Entry
		for _, o := range j.ran() {
			if o.Scenario.ID != id {
				continue
			}
			if waits, e := backoffWaits(o.Attempts); len(waits) >= 2 {
				series, ev = append(series, waits), append(ev, e...)
			}
		}
		if len(series) == 0 {
			continue
		}
		env := medianWaits(series)
		observed := fmt.Sprintf("%s (%d instances): median waits %s", id, len(series), durations(env))
		if slicesMax(env) < minJudgedWait {
			return check.Inconclusive("%s: waits under %s are too short to judge on a shared runner, whose own delays are of that order", observed, minJudgedWait)
		}
		groups := make([][]float64, len(env))
		for k := range groups {
			groups[k] = seconds(column(series, k))
		}
		last := len(env) - 1
		allowed := make([]float64, len(groups[last])) // what the last wait allows the first
		for i, w := range groups[last] {
			allowed[i] = w/backoffGrowth + waitNoise.Seconds()
		}
		pShort := shorterP(allowed, groups[0])
		pRise := risingP(groups)
		observed += fmt.Sprintf("; p = %.2g that the last is under %.1f times the first, p = %.2g that they do not rise", pShort, backoffGrowth, pRise)
		switch {
		case pShort < evidenceLevel:
			return check.Fail(want, observed, ev...)
		case pRise < evidenceLevel:
			return check.Pass(want, observed)
		}
		return check.Inconclusive("%s: too few instances for either verdict at p < %g (a widely jittered backoff needs more)", observed, evidenceLevel)
	}
	return check.Inconclusive("no operation made three attempts answered with failures without Retry-After: no waits to compare")
}

// column returns the k-th wait of every series.
func column(series [][]time.Duration, k int) []time.Duration {
	out := make([]time.Duration, len(series))
	for i, s := range series {
		out[i] = s[k]
	}
	return out
}

// medianWaits returns the median k-th wait over the series, for every k
// the shortest series has.
func medianWaits(series [][]time.Duration) []time.Duration {
	n := len(series[0])
	for _, s := range series {
		n = min(n, len(s))
	}
	out := make([]time.Duration, n)
	for k := range n {
		col := make([]time.Duration, len(series))
		for i, s := range series {
			col[i] = s[k]
		}
		slices.Sort(col)
		out[k] = col[len(col)/2]
	}
	return out
}

// minJudgedWait is the shortest wait CL-07 and CL-13 judge: a busy
// shared runner delays an attempt by up to a few hundred milliseconds.
const minJudgedWait = 500 * time.Millisecond

// backoffGrowth is the least growth CL-07 presumes of a correct backoff:
// the smallest multiplier common policies use (1.5; most double), so a
// client growing at least this fast fails with probability at most
// evidenceLevel.
const backoffGrowth = 1.5

// waitNoise is what CL-07 allows a shared runner to have lengthened the
// first wait by, beyond the later one.
const waitNoise = 50 * time.Millisecond

// backoffWaits returns the waits between consecutive attempts answered
// with a retryable status and no Retry-After, from the first such attempt.
func backoffWaits(as []faults.Entry) ([]time.Duration, []faults.Entry) {
	var waits []time.Duration
	for i := 0; i+1 < len(as); i++ {
		e := as[i]
		if e.Status < 500 || e.ResponseHeader("Retry-After") != "" {
			break
		}
		waits = append(waits, as[i+1].Received.Sub(e.Finished))
	}
	return waits, as[:min(len(as), len(waits)+1)]
}

func slicesMax(ds []time.Duration) time.Duration {
	m := ds[0]
	for _, d := range ds[1:] {
		m = max(m, d)
	}
	return m
}

func durations(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.Round(time.Millisecond).String()
	}
	return strings.Join(parts, ", ")
}

// judgeDispersal (CL-13): instances of a scenario that fail together do
// not retry in lockstep. Of the waits every instance made, the one with
// the longest median is judged (the runner's noise is smallest beside
// it) by its trimmed spread across instances as a share of the median. It
// passes from the jitter floor (the spread clients jittered by
// ±smallestJitter reach with probability 1 − evidenceLevel) and above
// lockstepShare, the runner's noise. It fails below both lockstepShare
// and the floor; and, where the floor is above narrowSpread (twelve
// instances or more, as the backoff scenario's sixteen), below
// narrowSpread: jitter within ±narrowJitter, too little to matter, fails
// every time, and ±smallestJitter still fails with probability at most
// evidenceLevel. In between, as with few instances, the evidence is too
// weak either way.
func judgeDispersal(j *judging) check.Result {
	seen := map[string]bool{}
	for _, r := range j.ran() {
		id := r.Scenario.ID
		if seen[id] || r.Scenario.Instances < 2 {
			continue
		}
		seen[id] = true
		var series [][]time.Duration
		var ev []faults.Entry
		var attempts [][]faults.Entry
		for _, o := range j.ran() {
			if o.Scenario.ID == id {
				if waits, e := backoffWaits(o.Attempts); len(waits) >= 1 {
					series, ev, attempts = append(series, waits), append(ev, e...), append(attempts, e)
				}
			}
		}
		if len(series) < 2 {
			continue
		}
		k, median, spread := widestWait(series)
		// A runner stall while the clients waited can spread lockstep
		// retries, or stamp spread ones together; beyond the runner's
		// usual delays (lockstepShare), neither a pass nor a failure is
		// given by less than it.
		from, to := waitSpan(attempts, k)
		late := j.worstStall(from, to)
		excess := max(late-time.Duration(lockstepShare*float64(median)), 0)
		floor := jitterFloor(len(series))
		failBelow, passFrom := min(lockstepShare, floor), max(lockstepShare, floor)
		failWhy := fmt.Sprintf("lockstep clients a runner delays spread up to %.0f %%, and %d clients jittered by ±%.0f %% spread less than %.1f %% once in %.0f runs", lockstepShare*100, len(series), smallestJitter*100, floor*100, 1/evidenceLevel)
		if narrowSpread < floor {
			failBelow = narrowSpread
			failWhy = fmt.Sprintf("jitter within ±%.1f %%, which keeps a wave of retries in one burst, spreads at most %.0f %% with a runner's %.0f %%, and %d clients jittered by ±%.0f %% spread less than %.1f %% once in %.0f runs", narrowJitter*100, 2*narrowJitter*100, lockstepShare*100, len(series), smallestJitter*100, floor*100, 1/evidenceLevel)
		}
		want := fmt.Sprintf("the waits of clients failing together spread over at least %.1f %% of their median (what ±%.0f %% jitter reaches in %d clients with p ≥ %g, and more than a runner's delays), and over %.1f %% at the least", passFrom*100, smallestJitter*100, len(series), 1-evidenceLevel, failBelow*100)
		share := float64(spread) / float64(median)
		observed := fmt.Sprintf("%s: wait %d of %d instances has median %s and spread %s (%.1f %%)", id, k+1, len(series), median.Round(time.Millisecond), spread.Round(time.Millisecond), share*100)
		switch {
		case median < minJudgedWait:
			return check.Inconclusive("%s: waits under %s are too short to judge on a shared runner, whose own delays spread them as much as jitter would", observed, minJudgedWait)
		case share < failBelow && float64(spread+excess)/float64(median) >= failBelow:
			return check.Inconclusive("%s: narrow enough to fail, but the runner was delayed up to %s at once while they waited, and a stall that holds several retries' arrivals stamps them together: they may have spread up to %.1f %%, over the %.1f %% under which it fails",
				observed, late.Round(time.Millisecond), float64(spread+excess)/float64(median)*100, failBelow*100)
		case share < failBelow:
			if share >= lockstepShare {
				observed += fmt.Sprintf(": wider than a runner's delays spread lockstep clients, but under %.1f %%, no wider than jitter within ±%.1f %% and those delays: too little to spread the retries", narrowSpread*100, narrowJitter*100)
			}
			return check.Fail(want, observed, ev...)
		case share >= passFrom && float64(spread-excess)/float64(median) < passFrom:
			return check.Inconclusive("%s: wide enough to pass, but the runner was delayed up to %s at once while they waited, which alone can spread clients retrying in lockstep by %.1f %% beyond a runner's usual delays; what is left (%.1f %%) is under the %.1f %% a pass needs",
				observed, late.Round(time.Millisecond), float64(excess)/float64(median)*100, float64(spread-excess)/float64(median)*100, passFrom*100)
		case share >= passFrom:
			return check.Pass(want, observed)
		}
		return check.Inconclusive("%s: between %.1f %%, under which it fails, and %.1f %%: %s", observed, failBelow*100, passFrom*100, failWhy)
	}
	return check.Inconclusive("no scenario run by several clients at once was retried by two of them: nothing to compare")
}

// waitSpan is when the clients' wait k went on: from the earliest answer
// before it to the latest attempt after it.
func waitSpan(attempts [][]faults.Entry, k int) (from, to time.Time) {
	for _, as := range attempts {
		if k+1 >= len(as) {
			continue
		}
		if end := as[k].Finished; from.IsZero() || end.Before(from) {
			from = end
		}
		if next := as[k+1].Received; next.After(to) {
			to = next
		}
	}
	return from, to
}

// widestWait returns the index of the wait with the longest median over
// the series (up to the shortest series' length), that median, and the
// spread of that wait: longest minus shortest, less trimOf of them at
// each end.
func widestWait(series [][]time.Duration) (k int, median, spread time.Duration) {
	n := len(series[0])
	for _, s := range series {
		n = min(n, len(s))
	}
	for i := range n {
		col := column(series, i)
		slices.Sort(col)
		if m := col[len(col)/2]; m > median {
			trim := trimOf(len(col))
			k, median, spread = i, m, col[len(col)-1-trim]-col[trim]
		}
	}
	return k, median, spread
}
