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

// ExampleHarness_stallLimit shows that a failure with a measured margin
// may be doubted by a stall beyond the least tolerance of the run, and
// any other verdict by one beyond its own suite's (else the harness's).
func ExampleHarness_stallLimit() {
	h := &Harness{Suites: []Suite{
		{Name: "retry-after", Slack: func(*Harness) time.Duration { return 20 * time.Millisecond }},
		{Name: "throttling", Slack: func(*Harness) time.Duration { return 500 * time.Millisecond }},
	}}
	fail, late := Result{Status: reports.StatusFail}, Result{Status: reports.StatusFail, Margin: time.Second}
	fmt.Println(h.stallLimit(Check{Suite: "throttling"}, fail), h.stallLimit(Check{Suite: "throttling"}, late),
		h.stallLimit(Check{Suite: "retry-after"}, fail), h.stallLimit(Check{Suite: "rate-limit-headers"}, fail))
	// Output: 500ms 20ms 20ms 50ms
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

// TestStalledFailure_waited: a failure whose evidence is one quick
// exchange, while the runner waited seconds for an answer that never
// came, is weighed against the stalls over the wait too (Result.Waited):
// the stall before the front proxy saw anything is no longer missed.
func TestStalledFailure_waited(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	seen := stalls{worst: 800 * time.Millisecond, total: 3 * time.Second, late: []stall{
		{at: t0.Add(900 * time.Millisecond), late: 800 * time.Millisecond},
		{at: t0.Add(2 * time.Second), late: 700 * time.Millisecond},
		{at: t0.Add(3 * time.Second), late: 800 * time.Millisecond},
		{at: t0.Add(4 * time.Second), late: 700 * time.Millisecond},
	}}
	ev := []faults.Entry{{Received: t0.Add(4100 * time.Millisecond), Finished: t0.Add(4200 * time.Millisecond)}}
	for _, c := range []struct {
		name   string
		waited Span
		want   bool
	}{
		{"evidence alone", Span{}, false},
		{"the wait too", Span{From: t0, To: t0.Add(4900 * time.Millisecond)}, true},
		{"a wait that began after the stalls", Span{From: t0.Add(4050 * time.Millisecond), To: t0.Add(4900 * time.Millisecond)}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := Result{Status: reports.StatusFail, Evidence: ev, Margin: 2700 * time.Millisecond, Waited: c.waited}
			if got := stalledFailure(res, seen, 50*time.Millisecond); got != c.want {
				t.Errorf("stalledFailure = %v; want %v", got, c.want)
			}
			if got := slowedFailure(res, seen); got != c.want {
				t.Errorf("slowedFailure = %v; want %v", got, c.want)
			}
		})
	}
}

// TestWatchStallsEvery_resolution: a watch's resolution is its period, at
// least a millisecond; the default watch's is stallEvery, as is a zero
// Stalls'.
func TestWatchStallsEvery_resolution(t *testing.T) {
	for _, tt := range []struct {
		every, want time.Duration
	}{{time.Millisecond, time.Millisecond}, {0, time.Millisecond}, {5 * time.Millisecond, 5 * time.Millisecond}, {stallEvery, stallEvery}} {
		if got := WatchStallsEvery(tt.every)().Resolution(); got != tt.want {
			t.Errorf("WatchStallsEvery(%s): resolution %s, want %s", tt.every, got, tt.want)
		}
	}
	if got := WatchStalls()().Resolution(); got != stallEvery {
		t.Errorf("WatchStalls: resolution %s, want %s", got, stallEvery)
	}
	if got := (Stalls{}).Resolution(); got != stallEvery {
		t.Errorf("a zero Stalls: resolution %s, want %s", got, stallEvery)
	}
}
