package check

import (
	"context"
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
	// Property failures whose shrunk case did not fail on replay, 3 ms
	// late (within a quiet runner's 5 ms) or 2 s late (beyond it).
	flaky1 := Result{Status: reports.StatusFail, Observed: "run 1 (seed 7, shrunk to the story below)", Counterexample: []string{"step"}, Unreplayed: true, Margin: 3 * time.Millisecond}
	flaky2 := Result{Status: reports.StatusFail, Observed: "run 2 (seed 8)", Unreplayed: true, Margin: 3 * time.Millisecond}
	flakyLate := Result{Status: reports.StatusFail, Observed: "run 1 (seed 7)", Unreplayed: true, Margin: 2 * time.Second}
	// Property failures whose shrunk case failed when checked but not when
	// retold, 3 ms late (within a quiet runner's 5 ms) or 2 s late.
	untold1 := Result{Status: reports.StatusFail, Observed: "run 1 (seed 7, shrunk to the story below)", Counterexample: []string{"step"}, Untold: true, Margin: 3 * time.Millisecond}
	untold2 := Result{Status: reports.StatusFail, Observed: "run 2 (seed 8)", Untold: true, Margin: 3 * time.Millisecond}
	untoldLate := Result{Status: reports.StatusFail, Observed: "run 1 (seed 7)", Untold: true, Margin: 2 * time.Second}
	// Timed failures 3 ms late: within a quiet runner's 5 ms of wake-ups
	// late in all, with no stall past the limit.
	slow1 := Result{Status: reports.StatusFail, Observed: "run 1 (seed 7)", Margin: 3 * time.Millisecond}
	slow2 := Result{Status: reports.StatusFail, Observed: "run 2 (seed 8)", Margin: 3 * time.Millisecond}
	// Inconclusive on the runner's own slowness.
	short1 := NoisyRunner("run 1 fell short of its rate")
	short2 := NoisyRunner("run 2 fell short of its rate")
	short3 := NoisyRunner("run 3 fell short of its rate")
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
		{"untimed check under a stall", "idempotency", []Result{fail1}, []time.Duration{stalled}, reports.StatusFail, "", true},
		{"confirmed on a quiet rerun", "retry-after", []Result{fail1, fail2}, []time.Duration{stalled, quiet}, reports.StatusFail,
			"run 1 (seed 7, shrunk to the story below) (this run failed while the runner stalled 80 ms, beyond the 50 ms a timing verdict can bear, so the check ran again, undisturbed, and failed again: run 2 (seed 8))", true},
		{"passes on a quiet rerun", "retry-after", []Result{fail1, pass2}, []time.Duration{stalled, quiet}, reports.StatusPass,
			"run 2 (on a second run: the first failed while the runner stalled 80 ms, beyond the 50 ms a timing verdict can bear: run 1 (seed 7))", false},
		{"failed three times under stalls", "retry-after", []Result{fail1, fail2, fail3}, []time.Duration{stalled, stalled, 90 * time.Millisecond}, reports.StatusInconclusive,
			"noisy runner: the runner stalled 80 ms, 80 ms and then 90 ms during three runs of this check, beyond the 50 ms a timing verdict can bear; the first run failed: run 1 (seed 7, shrunk to the story below); the last failed: run 3 (seed 9)", true},
		{"passed under stalls after failing under one", "retry-after", []Result{fail1, pass2, pass3}, []time.Duration{stalled, stalled, stalled}, reports.StatusInconclusive, "", true},
		{"decided on a third run", "retry-after", []Result{fail1, fail2, pass3}, []time.Duration{stalled, 70 * time.Millisecond, quiet}, reports.StatusPass,
			"run 3 (on run 3 (the runner stalled 70 ms during the runs between): the first failed while the runner stalled 80 ms, beyond the 50 ms a timing verdict can bear: run 1 (seed 7))", false},
		{"confirmed on a third run", "retry-after", []Result{fail1, pass2, fail3}, []time.Duration{stalled, stalled, quiet}, reports.StatusFail,
			"run 1 (seed 7, shrunk to the story below) (this run failed while the runner stalled 80 ms, beyond the 50 ms a timing verdict can bear, so the check ran again, undisturbed, and failed again: run 3 (seed 9) on run 3 (the runner stalled 80 ms during the runs between))", true},
		{"a near pass on a quiet runner", "retry-after", []Result{near1}, []time.Duration{quiet}, reports.StatusPass, "run 1: 60 % in one bucket", false},
		{"a near pass under a stall, then a quiet pass", "retry-after", []Result{near1, near2}, []time.Duration{stalled, quiet}, reports.StatusPass,
			"run 2: 55 % in one bucket (on a second run: the first passed while the runner stalled 80 ms, longer than the 10 ms its pass could bear: run 1: 60 % in one bucket)", false},
		{"a near pass under a stall, then lockstep", "retry-after", []Result{near1, lock2}, []time.Duration{stalled, quiet}, reports.StatusFail,
			"run 2: 100 % in one bucket (on a second run: the first passed while the runner stalled 80 ms, longer than the 10 ms its pass could bear: run 1: 60 % in one bucket)", false},
		{"near passes under three stalls", "retry-after", []Result{near1, near2, near3}, []time.Duration{stalled, stalled, stalled}, reports.StatusInconclusive,
			"noisy runner: the runner stalled 80 ms, 80 ms and then 80 ms during three runs of this check, longer than the 10 ms its first pass could bear: run 1: 60 % in one bucket; the last passed: run 3: 58 % in one bucket", false},
		{"inconclusive rerun", "retry-after", []Result{fail1, inc2}, []time.Duration{stalled, quiet}, reports.StatusInconclusive,
			"run 2 saw no dependency call (on a second run: the first failed while the runner stalled 80 ms, beyond the 50 ms a timing verdict can bear: run 1 (seed 7))", false},
		{"unreplayed, then a quiet pass", "retry-after", []Result{flaky1, pass2}, []time.Duration{quiet, quiet}, reports.StatusPass,
			"run 2 (on a second run: the first failed on a case that did not fail again on replay, late 3.0 ms past its bound, while the runner's wake-ups came 5.0 ms late in all: run 1 (seed 7))", false},
		{"unreplayed twice", "retry-after", []Result{flaky1, flaky2}, []time.Duration{quiet, quiet}, reports.StatusFail,
			"run 1 (seed 7, shrunk to the story below) (this run failed on a case that did not fail again on replay, late 3.0 ms past its bound, while the runner's wake-ups came 5.0 ms late in all, so the check ran again, undisturbed, and failed again: run 2 (seed 8))", true},
		{"unreplayed, late beyond the runner's lateness", "retry-after", []Result{flakyLate}, []time.Duration{quiet}, reports.StatusFail, "run 1 (seed 7)", false},
		{"unreplayed, untimed check, then a pass", "idempotency", []Result{flaky1, pass2}, nil, reports.StatusPass,
			"run 2 (on a second run: the first failed on a case that did not fail again on replay: run 1 (seed 7))", false},
		{"unreplayed, untimed check, then a failure", "idempotency", []Result{flaky1, fail2}, nil, reports.StatusFail, "", true},
		{"unreplayed, then passes under stalls", "retry-after", []Result{flaky1, pass2, pass3}, []time.Duration{quiet, stalled, stalled}, reports.StatusInconclusive,
			"noisy runner: the first run failed on a case that did not fail again on replay, late 3.0 ms past its bound, while the runner's wake-ups came 5.0 ms late in all: run 1 (seed 7, shrunk to the story below); then the runner stalled 80 ms and then 80 ms during two reruns, beyond the 50 ms a timing verdict can bear; the last passed: run 3", true},
		{"inconclusive while starved, then a pass", "retry-after", []Result{inc2, pass3}, []time.Duration{600 * time.Millisecond, quiet}, reports.StatusPass, "", false},
		{"inconclusive on a quiet runner", "retry-after", []Result{inc2}, []time.Duration{quiet}, reports.StatusInconclusive, "run 2 saw no dependency call", false},
		{"untold, then a quiet pass", "deadlines", []Result{untold1, pass2}, []time.Duration{quiet, quiet}, reports.StatusPass,
			"run 2 (on a second run: the first failed on a case that did not fail again when retold, late 3.0 ms past its bound, while the runner's wake-ups came 5.0 ms late in all: run 1 (seed 7))", false},
		{"untold twice", "deadlines", []Result{untold1, untold2}, []time.Duration{quiet, quiet}, reports.StatusFail,
			"run 1 (seed 7, shrunk to the story below) (this run failed on a case that did not fail again when retold, late 3.0 ms past its bound, while the runner's wake-ups came 5.0 ms late in all, so the check ran again, undisturbed, and failed again: run 2 (seed 8))", true},
		{"untold, late beyond the runner's lateness", "deadlines", []Result{untoldLate}, []time.Duration{quiet}, reports.StatusFail, "run 1 (seed 7)", false},
		{"untold, untimed check, then a pass", "idempotency", []Result{untold1, pass2}, nil, reports.StatusPass,
			"run 2 (on a second run: the first failed on a case that did not fail again when retold: run 1 (seed 7))", false},
		{"late by less than the runner's lateness, then a pass", "retry-after", []Result{slow1, pass2}, []time.Duration{quiet, quiet}, reports.StatusPass,
			"run 2 (on a second run: the first failed late by 3.0 ms past its bound, while the runner's wake-ups came 5.0 ms late in all during its exchanges: run 1 (seed 7))", false},
		{"late by less than the runner's lateness twice", "retry-after", []Result{slow1, slow2}, []time.Duration{quiet, quiet}, reports.StatusFail,
			"run 1 (seed 7) (this run failed late by 3.0 ms past its bound, while the runner's wake-ups came 5.0 ms late in all during its exchanges, so the check ran again, undisturbed, and failed again: run 2 (seed 8))", false},
		{"late by less than the runner's lateness, then a stalled failure", "retry-after", []Result{slow1, slow2}, []time.Duration{quiet, stalled}, reports.StatusFail,
			"run 1 (seed 7) (this run failed late by 3.0 ms past its bound, while the runner's wake-ups came 5.0 ms late in all during its exchanges, so the check ran again, and failed again: run 2 (seed 8))", false},
		{"short of its rate, then a pass", "retry-after", []Result{short1, pass2}, []time.Duration{quiet, quiet}, reports.StatusPass,
			"run 2 (on a second run: the first was inconclusive, noisy runner: run 1 fell short of its rate)", false},
		{"short of its rate three times", "retry-after", []Result{short1, short2, short3}, []time.Duration{quiet, quiet, quiet}, reports.StatusInconclusive,
			"noisy runner: none of 3 runs of this check was left undisturbed; the first: run 1 fell short of its rate; the last was inconclusive: noisy runner: run 3 fell short of its rate", false},
		{"short of its rate, untimed check", "idempotency", []Result{short1, pass2}, nil, reports.StatusPass,
			"run 2 (on a second run: the first was inconclusive, noisy runner: run 1 fell short of its rate)", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ids []string
			watches := 0
			h := &Harness{Journal: faults.NewJournal(), Seed: 1}
			h.stallWatch = func() func() stalls {
				i := watches
				watches++
				if i >= len(c.stalls) { // an untimed check's: a quiet runner
					return func() stalls { return stalls{} }
				}
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
		})
	}
}

// TestLateEveryRun: three failures in a row, each later than its bound by
// more than twice its run's longest stall, are the target's; a run that
// passed, failed untimed, or failed by less does not count.
func TestLateEveryRun(t *testing.T) {
	late := func(ms int) Result {
		return Result{Status: reports.StatusFail, Margin: time.Duration(ms) * time.Millisecond}
	}
	ms := func(d ...int) []time.Duration {
		out := make([]time.Duration, len(d))
		for i, v := range d {
			out[i] = time.Duration(v) * time.Millisecond
		}
		return out
	}
	for _, c := range []struct {
		name  string
		runs  []Result
		worst []time.Duration
		want  bool
	}{
		{"three late failures", []Result{late(654), late(609), late(600)}, ms(133, 83, 81), true},
		{"one within twice its stall", []Result{late(654), late(150), late(600)}, ms(133, 83, 81), false},
		{"a margin not measured", []Result{late(654), {Status: reports.StatusFail}, late(600)}, ms(133, 83, 81), false},
		{"a pass among them", []Result{late(654), {Status: reports.StatusPass}, late(600)}, ms(133, 83, 81), false},
		{"two runs only", []Result{late(654), late(609)}, ms(133, 83), false},
	} {
		if got := lateEveryRun(c.runs, c.worst); got != c.want {
			t.Errorf("%s: lateEveryRun = %v; want %v", c.name, got, c.want)
		}
	}
}
