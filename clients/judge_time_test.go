package clients

import (
	"slices"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
)

// TestWidestWait_spread: the judged wait is the one with the longest
// median; with five instances or more one outlier at either end does not
// widen its spread, so a runner that delays one lockstep client cannot
// pass CL-13 for it.
func TestWidestWait_spread(t *testing.T) {
	ms := func(vs ...int) []time.Duration {
		out := make([]time.Duration, len(vs))
		for i, v := range vs {
			out[i] = time.Duration(v) * time.Millisecond
		}
		return out
	}
	for _, c := range []struct {
		name   string
		series [][]time.Duration
		k      int
		median time.Duration
		spread time.Duration
	}{
		{"lockstep, one late", [][]time.Duration{ms(500, 2000), ms(500, 2001), ms(500, 2002), ms(500, 2001), ms(500, 2400)}, 1, 2001 * time.Millisecond, 1 * time.Millisecond},
		{"lockstep, one early and one late", [][]time.Duration{ms(1000), ms(700), ms(1001), ms(1002), ms(1300), ms(1000)}, 0, 1001 * time.Millisecond, 2 * time.Millisecond},
		{"jittered", [][]time.Duration{ms(100), ms(900), ms(400), ms(1500), ms(1200)}, 0, 900 * time.Millisecond, 800 * time.Millisecond},
		{"two instances keep the whole range", [][]time.Duration{ms(1000), ms(1300)}, 0, 1300 * time.Millisecond, 300 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			k, median, spread := widestWait(c.series)
			if k != c.k || median != c.median || spread != c.spread {
				t.Errorf("widestWait = %d, %s, %s; want %d, %s, %s", k, median, spread, c.k, c.median, c.spread)
			}
		})
	}
}

// TestJudgeRetryAfter_hedge: for a client that hedges after 60 ms, a copy
// sent by the hedge delay is not judged as a retry after the attempt's
// Retry-After when it came before the answer, or after it by no more than
// the runner stalled meanwhile; after a quiet runner, or from a client
// that declares no hedging, it is an early retry.
func TestJudgeRetryAfter_hedge(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	attempt := func(at, answered, status int, ra string) faults.Entry {
		e := faults.Entry{Method: "POST", Received: ms(at), Finished: ms(answered), Status: status}
		if ra != "" {
			e.ResponseHeaders = map[string]string{"Retry-After": ra}
		}
		return e
	}
	stalled := func(d time.Duration) func(time.Time, time.Time) time.Duration {
		return func(time.Time, time.Time) time.Duration { return d }
	}
	// A 503 with Retry-After 1 answered at once, then a copy 65 ms later.
	answeredAtOnce := []faults.Entry{attempt(0, 1, 503, "1"), attempt(65, 1100, 200, "")}
	// The same, then a retry: after the Retry-After, or before it.
	thenRetry := append(slices.Clone(answeredAtOnce), attempt(1010, 1011, 200, ""))
	thenEarly := append(slices.Clone(answeredAtOnce), attempt(400, 401, 200, ""))
	for _, tt := range []struct {
		name   string
		hedge  time.Duration
		runs   []faults.Entry
		stall  func(time.Time, time.Time) time.Duration
		status reports.Status
	}{
		{"hedge as the runner stalled past the answer", 60 * time.Millisecond, answeredAtOnce, stalled(80 * time.Millisecond), reports.StatusInconclusive},
		{"hedge after the answer on a quiet runner", 60 * time.Millisecond, answeredAtOnce, stalled(2 * time.Millisecond), reports.StatusFail},
		{"no hedging declared", 0, answeredAtOnce, stalled(80 * time.Millisecond), reports.StatusFail},
		{"hedge before a slow answer", 60 * time.Millisecond, []faults.Entry{attempt(0, 90, 503, "1"), attempt(62, 200, 200, "")}, nil, reports.StatusInconclusive},
		{"hedge skipped, the retry after it judged", 60 * time.Millisecond, thenRetry, stalled(80 * time.Millisecond), reports.StatusPass},
		{"hedge skipped, an early retry after it", 60 * time.Millisecond, thenEarly, stalled(80 * time.Millisecond), reports.StatusFail},
		{"a retry at once, before any hedge was due", 60 * time.Millisecond, []faults.Entry{attempt(0, 1, 503, "1"), attempt(2, 3, 200, "")}, stalled(80 * time.Millisecond), reports.StatusFail},
		{"a retry long after the hedge delay", 60 * time.Millisecond, []faults.Entry{attempt(0, 1, 503, "1"), attempt(300, 301, 200, "")}, stalled(80 * time.Millisecond), reports.StatusFail},
		{"the retry after Retry-After", 60 * time.Millisecond, []faults.Entry{attempt(0, 1, 503, "1"), attempt(1001, 1002, 200, "")}, nil, reports.StatusPass},
	} {
		j := &judging{policy: Policy{MaxAttempts: 4, HedgeDelay: tt.hedge}, tol: Tolerance{}.withDefaults(),
			runs: []*ScenarioRun{{id: "hedge", Attempts: tt.runs}}, stalled: tt.stall}
		res := judgeRetryAfter(FormSeconds)(j)
		if res.Status != tt.status {
			t.Errorf("%s: %s (%s%s); want %s", tt.name, res.Status, res.Observed, res.Reason, tt.status)
		}
	}
}

// TestJudgeHedgeDelay_lateness: a copy that came too soon after the one
// before it fails on a quiet runner; where the runner's wake-ups came late
// in all by what may have held the earlier copy back, it is a noisy
// runner's verdict (the reference SDK's copy 2 came 204 ms after copy 1
// of a 300 ms delay on a busy CI runner).
func TestJudgeHedgeDelay_lateness(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	i := slices.IndexFunc(Scenarios(), func(s Scenario) bool { return s.ID == "hedge" })
	if i < 0 {
		t.Fatal("no hedge scenario")
	}
	sc := Scenarios()[i]
	attempts := func(second int) []faults.Entry {
		return []faults.Entry{
			{Seq: 1, Method: "POST", Received: ms(0), Finished: ms(1), Status: 503, ResponseHeaders: map[string]string{"Retry-After": "1"}},
			{Seq: 2, Method: "POST", Received: ms(1129), Finished: ms(2130), Status: 200},
			{Seq: 3, Method: "POST", Received: ms(1129 + second), ClientGone: ms(2140)},
		}
	}
	// late answers d over the span from when copy 2's delay would have
	// begun until copy 1 arrived, and nothing elsewhere.
	late := func(d time.Duration) func(time.Time, time.Time) time.Duration {
		return func(from, to time.Time) time.Duration {
			if !from.Before(to) || to.After(ms(1129)) || from.Before(ms(1129+204-300)) {
				return 0
			}
			return d
		}
	}
	for _, tt := range []struct {
		name   string
		second int // ms from copy 1 to copy 2
		late   func(time.Time, time.Time) time.Duration
		status reports.Status
		noisy  bool
	}{
		{"on time", 300, nil, reports.StatusPass, false},
		{"early on a quiet runner", 204, late(10 * time.Millisecond), reports.StatusFail, false},
		{"early by what the runner's lateness explains", 204, late(96 * time.Millisecond), reports.StatusInconclusive, true},
		{"a third of the delay, beyond the lateness", 100, late(96 * time.Millisecond), reports.StatusFail, false},
	} {
		j := &judging{policy: Policy{MaxAttempts: 4, HedgeDelay: 300 * time.Millisecond, HedgeCopies: 2}, tol: Tolerance{}.withDefaults(),
			runs: []*ScenarioRun{{id: "hedge", Scenario: sc, Attempts: attempts(tt.second)}}, slowed: tt.late}
		res := judgeHedgeDelay(j)
		if res.Status != tt.status || res.Noisy != tt.noisy {
			t.Errorf("%s: %s, noisy %v (%s%s); want %s, noisy %v", tt.name, res.Status, res.Noisy, res.Observed, res.Reason, tt.status, tt.noisy)
		}
	}
}
