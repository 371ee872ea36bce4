package suites

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
)

// TestHarness_rejudged: a timed check that fails while the runner stalls
// beyond the tolerance runs again under a case id of its own; the
// second run decides, unless it too failed under a stall. A check that is
// not timed, or that failed on a quiet runner, runs once.
func TestHarness_rejudged(t *testing.T) {
	const stalled, quiet = 80 * time.Millisecond, 5 * time.Millisecond // the limit is 50 ms
	for _, c := range []struct {
		name     string
		suite    string
		verdicts []reports.Status // per run
		stalls   []time.Duration  // per watched run
		want     reports.Status
		wantRuns int
		wantText string
	}{
		{"fails on a quiet runner", suiteRA, []reports.Status{reports.StatusFail}, []time.Duration{quiet}, reports.StatusFail, 1, ""},
		{"passes under a stall", suiteRA, []reports.Status{reports.StatusPass}, []time.Duration{stalled}, reports.StatusPass, 1, ""},
		{"untimed check", suiteIK, []reports.Status{reports.StatusFail}, nil, reports.StatusFail, 1, ""},
		{"confirmed on a quiet rerun", suiteRA, []reports.Status{reports.StatusFail, reports.StatusFail}, []time.Duration{stalled, quiet},
			reports.StatusFail, 2, "run 1 (the runner stalled 80 ms during this run, beyond the 50 ms a timed verdict bears, so the check ran again and failed again without a stall: run 2)"},
		{"passes on a quiet rerun", suiteRA, []reports.Status{reports.StatusFail, reports.StatusPass}, []time.Duration{stalled, quiet},
			reports.StatusPass, 2, "run 2 (on a second run: the first failed while the runner stalled 80 ms, beyond the 50 ms a timed verdict bears: run 1)"},
		{"stalled twice", suiteRA, []reports.Status{reports.StatusFail, reports.StatusFail}, []time.Duration{stalled, stalled},
			reports.StatusInconclusive, 2, "noisy runner: HS-T failed twice while the runner stalled (80 ms, then 80 ms), beyond the 50 ms a timed verdict bears: run 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ids []string
			watches := 0
			h := &Harness{Journal: faults.NewJournal(), Seed: 1}
			h.stallWatch = func() func() time.Duration {
				i := watches
				watches++
				return func() time.Duration { return c.stalls[i] }
			}
			chk := Check{ID: "HS-T", Suite: c.suite, Run: func(_ context.Context, cs *Case) Result {
				ids = append(ids, cs.id)
				n := len(ids)
				obs := "run " + string(rune('0'+n))
				if c.verdicts[n-1] == reports.StatusFail {
					return fail("want", obs)
				}
				return pass("want", obs)
			}}
			res := runOne(t.Context(), h, chk)
			if res.Status != c.want || len(ids) != c.wantRuns {
				t.Fatalf("%s after %d runs (%q); want %s after %d", res.Status, len(ids), res.Observed+res.Reason, c.want, c.wantRuns)
			}
			if c.wantRuns == 2 && ids[1] != "HS-T/again" {
				t.Errorf("second run's case is %q; want fresh draws under HS-T/again", ids[1])
			}
			if got := res.Observed + res.Reason; c.wantText != "" && got != c.wantText {
				t.Errorf("text = %q\nwant   %q", got, c.wantText)
			}
			if c.suite == suiteIK && watches != 0 {
				t.Errorf("an untimed check was watched %d times", watches)
			}
		})
	}
}

// TestWatchStalls: a goroutine that holds the only processor delays the
// watch's wake-ups until the scheduler preempts it (about 10 ms), which
// the watch reports; a busier runner only lengthens the stall, so the
// bound is one-sided.
func TestWatchStalls(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	stop := watchStalls()
	time.Sleep(20 * time.Millisecond) // the watch is sleeping
	for start := time.Now(); time.Since(start) < 200*time.Millisecond; {
	}
	got := stop()
	t.Logf("worst overshoot %s", got)
	if got < 5*time.Millisecond {
		t.Errorf("worst overshoot %s while a goroutine held the only processor for 200 ms; want ≥ 5 ms", got)
	}
}
