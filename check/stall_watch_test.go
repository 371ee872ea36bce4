package check

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
)

// TestHarness_rejudged: a timed check that fails while the runner stalls
// beyond the tolerance runs again under a case id of its own; the first
// rerun the runner kept within it decides, and after two disturbed reruns
// the check is inconclusive. A check that is not timed, or that failed on a quiet
// runner, runs once.
func TestHarness_rejudged(t *testing.T) {
	const stalled, quiet = 80 * time.Millisecond, 5 * time.Millisecond // the limit is 50 ms
	fail1 := Result{Status: reports.StatusFail, Observed: "run 1 (seed 7, shrunk to the story below)", Counterexample: []string{"step"}}
	fail2 := Result{Status: reports.StatusFail, Observed: "run 2 (seed 8, shrunk to the story below)"}
	pass2 := Result{Status: reports.StatusPass, Observed: "run 2"}
	fail3 := Result{Status: reports.StatusFail, Observed: "run 3 (seed 9)"}
	pass3 := Result{Status: reports.StatusPass, Observed: "run 3"}
	inc2 := Result{Status: reports.StatusInconclusive, Reason: "run 2 saw no dependency call"}
	// Passes that rest on events spread wider than a 10 ms stall could
	// spread them (Quiet), or not.
	near1 := Result{Status: reports.StatusPass, Observed: "run 1: 60 % in one bucket", Quiet: 10 * time.Millisecond}
	near2 := Result{Status: reports.StatusPass, Observed: "run 2: 55 % in one bucket", Quiet: 10 * time.Millisecond}
	near3 := Result{Status: reports.StatusPass, Observed: "run 3: 58 % in one bucket", Quiet: 10 * time.Millisecond}
	lock2 := Result{Status: reports.StatusFail, Observed: "run 2: 100 % in one bucket"}
	// Late by 2 s: no 80 ms stall explains it.
	late1 := Result{Status: reports.StatusFail, Observed: "run 1 (seed 7)", Margin: 2 * time.Second}
	late2 := Result{Status: reports.StatusFail, Observed: "run 2 (seed 8)", Margin: 2 * time.Second}
	for _, c := range []struct {
		name      string
		suite     string
		runs      []Result
		stalls    []time.Duration // per watched run
		want      reports.Status
		wantText  string // Observed + Reason; "" when not compared
		wantStory bool   // the first run's counterexample is kept
	}{
		{"fails on a quiet runner", "retry-after", []Result{fail1}, []time.Duration{quiet}, reports.StatusFail, "", true},
		{"late by more than the stall", "retry-after", []Result{late1}, []time.Duration{stalled}, reports.StatusFail,
			"run 1 (seed 7) (the runner stalled up to 80 ms during this run, 80 ms in all, less than the 2000 ms the failure was late by)", false},
		{"late by more than the rerun's stall", "retry-after", []Result{fail1, late2}, []time.Duration{stalled, stalled}, reports.StatusFail, "", true},
		{"passes under a stall", "retry-after", []Result{pass2}, []time.Duration{stalled}, reports.StatusPass, "", false},
		{"untimed check", "idempotency", []Result{fail1}, nil, reports.StatusFail, "", true},
		{"confirmed on a quiet rerun", "retry-after", []Result{fail1, fail2}, []time.Duration{stalled, quiet}, reports.StatusFail,
			"run 1 (seed 7, shrunk to the story below) (the runner stalled 80 ms during this run, beyond the 50 ms a timing verdict can bear, so the check ran again, stalling no longer than that, and failed again: run 2 (seed 8))", true},
		{"passes on a quiet rerun", "retry-after", []Result{fail1, pass2}, []time.Duration{stalled, quiet}, reports.StatusPass,
			"run 2 (on a second run: the first failed while the runner stalled 80 ms, beyond the 50 ms a timing verdict can bear: run 1 (seed 7))", false},
		{"failed three times under stalls", "retry-after", []Result{fail1, fail2, fail3}, []time.Duration{stalled, stalled, 90 * time.Millisecond}, reports.StatusInconclusive,
			"noisy runner: the runner stalled 80 ms, 80 ms and then 90 ms during three runs of this check, beyond the 50 ms a timing verdict can bear; the first run failed: run 1 (seed 7, shrunk to the story below); the last failed: run 3 (seed 9)", true},
		{"passed under stalls after failing under one", "retry-after", []Result{fail1, pass2, pass3}, []time.Duration{stalled, stalled, stalled}, reports.StatusInconclusive, "", true},
		{"decided on a third run", "retry-after", []Result{fail1, fail2, pass3}, []time.Duration{stalled, 70 * time.Millisecond, quiet}, reports.StatusPass,
			"run 3 (on run 3 (the runner stalled 70 ms during the runs between): the first failed while the runner stalled 80 ms, beyond the 50 ms a timing verdict can bear: run 1 (seed 7))", false},
		{"confirmed on a third run", "retry-after", []Result{fail1, pass2, fail3}, []time.Duration{stalled, stalled, quiet}, reports.StatusFail,
			"run 1 (seed 7, shrunk to the story below) (the runner stalled 80 ms during this run, beyond the 50 ms a timing verdict can bear, so the check ran again, stalling no longer than that, and failed again: run 3 (seed 9) on run 3 (the runner stalled 80 ms during the runs between))", true},
		{"a near pass on a quiet runner", "retry-after", []Result{near1}, []time.Duration{quiet}, reports.StatusPass, "run 1: 60 % in one bucket", false},
		{"a near pass under a stall, then a quiet pass", "retry-after", []Result{near1, near2}, []time.Duration{stalled, quiet}, reports.StatusPass,
			"run 2: 55 % in one bucket (on a second run: the first passed while the runner stalled 80 ms, longer than the 10 ms its pass could bear: run 1: 60 % in one bucket)", false},
		{"a near pass under a stall, then lockstep", "retry-after", []Result{near1, lock2}, []time.Duration{stalled, quiet}, reports.StatusFail,
			"run 2: 100 % in one bucket (on a second run: the first passed while the runner stalled 80 ms, longer than the 10 ms its pass could bear: run 1: 60 % in one bucket)", false},
		{"near passes under three stalls", "retry-after", []Result{near1, near2, near3}, []time.Duration{stalled, stalled, stalled}, reports.StatusInconclusive,
			"noisy runner: the runner stalled 80 ms, 80 ms and then 80 ms during three runs of this check, longer than the 10 ms its first pass could bear: run 1: 60 % in one bucket; the last passed: run 3: 58 % in one bucket", false},
		{"inconclusive rerun", "retry-after", []Result{fail1, inc2}, []time.Duration{stalled, quiet}, reports.StatusInconclusive,
			"run 2 saw no dependency call (on a second run: the first failed while the runner stalled 80 ms, beyond the 50 ms a timing verdict can bear: run 1 (seed 7))", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ids []string
			watches := 0
			h := &Harness{Journal: faults.NewJournal(), Seed: 1}
			h.stallWatch = func() func() stalls {
				i := watches
				watches++
				return func() stalls { return stalls{worst: c.stalls[i], total: c.stalls[i]} }
			}
			chk := Check{ID: "HS-T", Suite: c.suite, Timed: c.suite == "retry-after" || c.suite == "deadlines", Run: func(_ context.Context, cs *Case) Result {
				ids = append(ids, cs.ID)
				return c.runs[len(ids)-1]
			}}
			res := Judge(t.Context(), h, chk)
			if res.Status != c.want || len(ids) != len(c.runs) {
				t.Fatalf("%s after %d runs (%q); want %s after %d", res.Status, len(ids), res.Observed+res.Reason, c.want, len(c.runs))
			}
			for i, want := range []string{"HS-T", "HS-T/again", "HS-T/again2"}[:len(ids)] {
				if ids[i] != want {
					t.Errorf("run %d's case is %q; want %q", i+1, ids[i], want)
				}
			}
			if got := res.Observed + res.Reason; c.wantText != "" && got != c.wantText {
				t.Errorf("text = %q\nwant   %q", got, c.wantText)
			}
			if got := len(res.Counterexample) > 0; got != c.wantStory {
				t.Errorf("counterexample kept: %v; want %v", got, c.wantStory)
			}
			if c.suite == "idempotency" && watches != 0 {
				t.Errorf("an untimed check was watched %d times", watches)
			}
		})
	}
}

// TestHarness_watchedPanic: a timed check that panics stops its watch
// before runOne recovers, so no watch outlives its check.
func TestHarness_watchedPanic(t *testing.T) {
	h := &Harness{Journal: faults.NewJournal(), Seed: 1}
	stopped := false
	h.stallWatch = func() func() stalls {
		return func() stalls { stopped = true; return stalls{} }
	}
	chk := Check{ID: "HS-T", Suite: "retry-after", Timed: true, Run: func(context.Context, *Case) Result { panic("boom") }}
	if res := Judge(t.Context(), h, chk); res.Status != reports.StatusInconclusive || !stopped {
		t.Errorf("%s, watch stopped: %v; want inconclusive and stopped", res.Status, stopped)
	}
}

// TestWatchStalls: a goroutine that holds the only processor delays the
// watch's wake-ups until the scheduler preempts it (about 10 ms), which
// the watch reports; a busier runner only lengthens the stall, so the
// bound is one-sided. It must not run in parallel: it narrows the whole
// test binary to one processor.
func TestWatchStalls(t *testing.T) {
	runtime.GOMAXPROCS(1)
	defer runtime.SetDefaultGOMAXPROCS()
	stop := watchStalls()
	time.Sleep(25 * time.Millisecond) // the watch is waiting
	for start := time.Now(); time.Since(start) < 200*time.Millisecond; {
	}
	if got := stop(); got.worst < 5*time.Millisecond || got.total < got.worst {
		t.Errorf("lateness %s, %s in all, while a goroutine held the only processor for 200 ms; want ≥ 5 ms, the sum at least that", got.worst, got.total)
	}
}

// ExampleHarness_stallLimit shows that the limit follows the least
// tolerance a timed check judges with.
func ExampleHarness_stallLimit() {
	h := &Harness{Suites: []Suite{{Name: "retry-after", Slack: func(*Harness) time.Duration { return 20 * time.Millisecond }}}}
	fmt.Println(h.stallLimit())
	// Output: 20ms
}

// TestStalls_within: a failure is weighed against the stalls while its
// evidence was exchanged, not against every stall of a long check.
func TestStalls_within(t *testing.T) {
	t.Parallel()
	t0 := time.Now()
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	s := stalls{worst: 300 * time.Millisecond, total: 420 * time.Millisecond, late: []stall{
		{at(100), 100 * time.Millisecond}, {at(1000), 300 * time.Millisecond}, {at(2000), 20 * time.Millisecond}}}
	cases := []struct {
		name     string
		from, to time.Time
		want     time.Duration
	}{
		{"around the first", at(50), at(150), 100 * time.Millisecond},
		{"overlapping the second's end only", at(900), at(1500), 300 * time.Millisecond},
		{"before the second began", at(150), at(650), 0},
		{"all of them", at(0), at(3000), 420 * time.Millisecond},
		{"no evidence", time.Time{}, time.Time{}, 420 * time.Millisecond},
	}
	for _, c := range cases {
		if got := s.within(c.from, c.to); got != c.want {
			t.Errorf("%s: within = %s; want %s", c.name, got, c.want)
		}
	}
	ev := []faults.Entry{{Received: at(20), Finished: at(160)}, {Received: at(40)}}
	if from, to := evidenceSpan(ev); !from.Equal(at(20)) || !to.Equal(at(160)) {
		t.Errorf("evidenceSpan = %v..%v", from, to)
	}
	late := Result{Status: reports.StatusFail, Margin: 200 * time.Millisecond, Evidence: ev}
	if stalledFailure(late, s, 50*time.Millisecond) {
		t.Error("a failure 200 ms past its bound, amid a 100 ms stall, was not trusted")
	}
	if !stalledFailure(Result{Status: reports.StatusFail, Margin: 200 * time.Millisecond}, s, 50*time.Millisecond) {
		t.Error("a failure with no evidence was weighed against less than every stall")
	}
}

func TestStalls_Worst(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	s := Stalls{stalls{late: []stall{{t0.Add(100 * time.Millisecond), 30 * time.Millisecond}, {t0.Add(time.Second), 200 * time.Millisecond}}}}
	tests := []struct {
		from, to time.Time
		want     time.Duration
	}{
		{t0, t0.Add(500 * time.Millisecond), 30 * time.Millisecond},
		{t0, t0.Add(2 * time.Second), 200 * time.Millisecond},
		{t0.Add(850 * time.Millisecond), t0.Add(900 * time.Millisecond), 200 * time.Millisecond}, // the 200 ms stall spans it
		{t0.Add(1100 * time.Millisecond), t0.Add(2 * time.Second), 0},
	}
	for _, tt := range tests {
		if got := s.Worst(tt.from, tt.to); got != tt.want {
			t.Errorf("Worst(+%s, +%s) = %s, want %s", tt.from.Sub(t0), tt.to.Sub(t0), got, tt.want)
		}
	}
	if got := (Stalls{}).Worst(t0, t0.Add(time.Hour)); got != 0 {
		t.Errorf("a zero Stalls saw %s", got)
	}
	full := Stalls{stalls{worst: time.Second, late: make([]stall, maxStalls)}}
	if got := full.Worst(t0, t0.Add(time.Millisecond)); got != time.Second {
		t.Errorf("a watch that kept all it could: Worst = %s, want the whole watch's 1s", got)
	}
}
