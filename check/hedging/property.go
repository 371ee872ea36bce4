package hedging

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"pgregory.net/rapid"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/properties"
)

// exploreFor is HD-01p's default exploring time; --explore lengthens it.
const exploreFor = 3 * time.Second

// structural is the margin of a failure no stall of the runner can cause
// (a copy too many, a second key, a second effect): it stands.
const structural = check.NotTimed

// step is the dependency's answer to one call of a script; scaled by the
// declared delay, so every slow answer outlasts it.
type step struct {
	name  string
	fault func(delay time.Duration, k int) faults.Fault
}

// steps: prompt and slow successes, and refusals prompt and slow.
var steps = []step{
	{"prompt success", func(time.Duration, int) faults.Fault { return faults.Delay{} }},
	{"slow success", func(d time.Duration, k int) faults.Fault { return faults.Delay{Duration: d * time.Duration(k)} }},
	{"slow success", func(d time.Duration, k int) faults.Fault { return faults.Delay{Duration: d * time.Duration(k)} }},
	{"503", func(time.Duration, int) faults.Fault { return faults.Abort{Status: http.StatusServiceUnavailable} }},
	{"slow 503", func(d time.Duration, k int) faults.Fault {
		return faults.Abort{Status: http.StatusServiceUnavailable, Delay: d * time.Duration(k)}
	}},
}

// hedgeProperty is HD-01p: random dependency latencies (a script per call,
// a bimodal tail, every call slow) and refusals, one request a case,
// judged attempt by attempt: no copy before the declared delay while the
// others are pending, no more copies than declared, one key on every copy,
// every loser let go once a copy succeeded, and one effect.
func hedgeProperty(ctx context.Context, pc *check.Case) check.Result {
	h := pc.Harness
	// A lent copy may come with a breaker its last check opened: healed
	// beside the check's own.
	lent := h.PrepareLent(ctx, pc.ID, "~heal", func(ctx context.Context, hc *check.Case) error {
		return hc.Heal(ctx, hc.Harness.Policy.Retry.HealStreak(), hc.Harness.HealWithin())
	})
	c, res, ok := begin(ctx, pc)
	cold := lent()
	if !ok {
		return res
	}
	want := fmt.Sprintf("for random latencies and refusals: every hedged copy %s or more after the copy before it while that one is pending (−%s), at most %s copies per attempt, one key on every copy, the losers let go within %s of a success, one effect",
		check.Ms(c.p.Delay), check.Ms(c.tol), copiesText(c.p), check.Ms(c.cancelTol))
	cfg := properties.Config{Seed: h.Rand(pc.ID).Uint64(), ShrinkTime: 6 * time.Second, MinCases: 2}
	cfg = h.Exploring(cfg, exploreFor)
	trouble := &check.Trouble{}
	var ms []*machine
	r := h.ExploreEach(pc.ID, cfg, func(w int, hw *check.Harness) func(*rapid.T) bool {
		m := &machine{h: hw, ctx: ctx, id: check.WorkerID(pc.ID, w), tol: c.tol, cancelTol: c.cancelTol, p: c.p, trouble: trouble}
		ms = append(ms, m)
		if cold[w] == nil {
			return m.run
		}
		return func(t *rapid.T) bool {
			trouble.Skip(t, "healing a copy of the target", cold[w])
			return false
		}
	})
	out := check.Exploration{Want: want, Meaningful: "hedged a call", Trouble: trouble}.Result(r, cfg, ms[r.Worker].last)
	if r.Failed {
		out.Margin = ms[r.Worker].margin
	}
	return out
}

// machine runs HD-01p's cases on one copy of the target.
type machine struct {
	trouble *check.Trouble // shared by the workers
	h       *check.Harness
	ctx     context.Context
	id      string
	tol     time.Duration
	// cancelTol bounds how long a loser runs on after the winner's answer
	// (Config.cancelSlack).
	cancelTol time.Duration
	p         check.HedgingPolicy
	cases     int
	last      []faults.Entry
	// margin is how far past its bound the failing case's time went, for
	// the failures a measured time decides.
	margin time.Duration
	// earlier holds the keys the dependency saw in this worker's earlier
	// cases: a call carrying one is a straggler of an earlier request (a
	// hedge whose timer fired as its request was answered, sent after the
	// proxies had gone quiet), not a copy or an effect of this one.
	earlier map[string]bool
}

// run is one case. It reports whether the target hedged a call.
func (m *machine) run(t *rapid.T) bool {
	h := m.h
	m.cases++
	cs := h.NewCase(m.ctx, fmt.Sprintf("%s-%d", m.id, m.cases))
	defer cs.Done(m.ctx)
	c := &hdCase{Case: cs, tol: m.tol, cancelTol: m.cancelTol, p: m.p}
	d := m.p.Delay
	shape := rapid.SampledFrom([]string{"script", "script", "bimodal", "every call slow"}).Draw(t, "latency")
	k := rapid.IntRange(2, 4).Draw(t, "slow (delays)")
	var told string
	switch shape {
	case "script":
		n := rapid.IntRange(1, 3).Draw(t, "calls scripted")
		var names []string
		for range n {
			s := rapid.SampledFrom(steps).Draw(t, "answer")
			if err := c.Fault(h.Dependency, c.EffectMatch(1), s.fault(d, k)); err != nil {
				m.trouble.Skip(t, "placing the script", err)
			}
			names = append(names, s.name)
		}
		told = "the dependency answers " + strings.Join(names, ", ") + ", then promptly"
	case "bimodal":
		share := rapid.SampledFrom([]float64{0.25, 0.5, 0.75}).Draw(t, "slow share")
		if err := c.Fault(h.Dependency, c.EffectMatch(0), faults.Latency{Fast: 2 * time.Millisecond, Slow: d * time.Duration(k), SlowShare: share}); err != nil {
			m.trouble.Skip(t, "placing the latency", err)
		}
		told = fmt.Sprintf("a share of %.2f of the calls is slow", share)
	default:
		if err := c.Fault(h.Dependency, c.EffectMatch(0), faults.Delay{Duration: d * time.Duration(k)}); err != nil {
			m.trouble.Skip(t, "placing the latency", err)
		}
		told = "every call is slow"
	}
	told += fmt.Sprintf(" (slow: %d delays)", k)
	mark := c.mark(m.ctx)
	wait := d*time.Duration(4*k) + 2*time.Second
	r, _ := c.send(m.ctx, wait)
	var calls, strays []faults.Entry
	for _, e := range c.calls(m.ctx, mark) {
		if k := c.key(e); k != "" && m.earlier[k] {
			strays = append(strays, e)
			continue
		}
		calls = append(calls, e)
	}
	if m.earlier == nil {
		m.earlier = map[string]bool{}
	}
	for _, e := range calls {
		if k := c.key(e); k != "" {
			m.earlier[k] = true
		}
	}
	m.last = calls
	attempts := c.copies(calls)
	hedged := false
	for _, a := range attempts {
		hedged = hedged || len(a) > 1
	}
	t.Logf("%s; %d calls in %d attempts: %s; the client got %s", told, len(calls), len(attempts), m.story(c, attempts), check.Describe(r))
	m.margin = 0
	for i, a := range attempts {
		m.judge(t, c, i+1, a)
	}
	if len(strays) > 0 {
		t.Logf("%d calls carried an earlier case's key: stragglers of an earlier request, left out", len(strays))
	}
	if n := effectsOf(m.ctx, c, calls); n > 1 {
		m.margin = structural
		t.Fatalf("%d effects for one request: %d distinct keys the dependency accepted, or calls without a key", n, n)
	}
	return hedged
}

// judge holds one attempt's copies to the invariants.
func (m *machine) judge(t *rapid.T, c *hdCase, n int, a []faults.Entry) {
	// The copies and their timing are judged up to the attempt's first
	// answer: after it the target may retry while a loser's cancel is
	// still on its way, and that retry overlaps the loser without being
	// its copy (one way or the other, no count after an answer is sure).
	sent := a[:answeredBy(a, m.tol)]
	if len(sent) > m.p.Copies() {
		m.margin = structural
		t.Fatalf("attempt %d: %d copies before any was answered, above the cap of %s", n, len(sent), copiesText(m.p))
	}
	for j := 1; j < len(a); j++ {
		if k, first := c.key(a[j]), c.key(a[0]); first == "" || k != first {
			m.margin = structural
			if first == "" {
				t.Fatalf("attempt %d: %d copies carried no idempotency key", n, len(a))
			}
			t.Fatalf("attempt %d: copy %d carried key %q, copy 1 %q", n, j+1, k, first)
		}
		if j >= len(sent) {
			continue
		}
		pending := true
		for _, e := range a[:j] {
			pending = pending && callEndOf(e).After(a[j].Received)
		}
		if gap := a[j].Received.Sub(a[j-1].Received); pending && gap < m.p.Delay-m.tol {
			m.margin = m.p.Delay - m.tol - gap
			t.Fatalf("attempt %d: copy %d came %s after copy %d, which was still pending, before the delay of %s", n, j+1, check.Ms(gap), j, check.Ms(m.p.Delay))
		}
	}
	won := -1
	for j, e := range a {
		if st := check.AnswerStatus(e); e.ClientGone.IsZero() && st >= 200 && st < 300 && (won < 0 || e.Finished.Before(a[won].Finished)) {
			won = j
		}
	}
	if won < 0 || len(a) < 2 {
		return
	}
	for j, e := range a {
		if late := callEndOf(e).Sub(a[won].Finished); j != won && late > m.cancelTol {
			m.margin = late - m.cancelTol
			t.Fatalf("attempt %d: copy %d ran on %s after copy %d succeeded", n, j+1, check.Ms(late), won+1)
		}
	}
}

// story renders the attempts as the answers their copies met. Timings stay
// out, so a replay by seed tells the same story; the evidence has them.
func (m *machine) story(c *hdCase, attempts [][]faults.Entry) string {
	parts := make([]string, len(attempts))
	for i, a := range attempts {
		copies := make([]string, len(a))
		for j, e := range a {
			copies[j] = check.AnswerText(e)
			if !e.ClientGone.IsZero() {
				copies[j] = "cancelled"
			}
		}
		parts[i] = "[" + strings.Join(copies, ", ") + "]"
	}
	return strings.Join(parts, " ")
}

// callEndOf is when the target let go of e: it went away, or the exchange
// finished; now if neither happened yet.
func callEndOf(e faults.Entry) time.Time {
	switch {
	case !e.ClientGone.IsZero():
		return e.ClientGone
	case !e.Finished.IsZero():
		return e.Finished
	}
	return time.Now()
}

// effectsOf counts the effects calls made, as the ledger counts them (the
// probe, for a target that declares no ledger): each distinct key among the
// calls the dependency accepted, and each accepted call without a key.
func effectsOf(ctx context.Context, c *hdCase, calls []faults.Entry) int {
	if c.Harness.NoLedger {
		return c.Effects(ctx).Total
	}
	keys := map[string]bool{}
	n := 0
	for _, e := range calls {
		if !check.TookEffect(e) {
			continue
		}
		switch k := c.key(e); {
		case k == "":
			n++
		case !keys[k]:
			keys[k] = true
			n++
		}
	}
	return n
}

// answeredBy is how many of an attempt's copies (in the order they started)
// started more than slack before the first answer any of them got.
func answeredBy(a []faults.Entry, slack time.Duration) int {
	var first time.Time
	for _, e := range a {
		if e.Status != 0 && e.ClientGone.IsZero() && (first.IsZero() || e.Finished.Before(first)) {
			first = e.Finished
		}
	}
	if first.IsZero() {
		return len(a)
	}
	n := 0
	for _, e := range a {
		if e.Received.Before(first.Add(-slack)) {
			n++
		}
	}
	return n
}
