package check

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/faults"
)

func TestAttempts(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	call := func(from, to, gone int) faults.Entry {
		e := faults.Entry{Received: t0.Add(time.Duration(from) * time.Millisecond), Finished: t0.Add(time.Duration(to) * time.Millisecond)}
		if gone > 0 {
			e.ClientGone = t0.Add(time.Duration(gone) * time.Millisecond)
		}
		return e
	}
	for _, tc := range []struct {
		name  string
		calls []faults.Entry
		want  []int // copies per attempt
	}{
		{"none", nil, nil},
		{"replay at once after a reset", []faults.Entry{call(0, 1, 0), call(0, 2, 0)}, []int{1, 1}},
		{"copies sent together", []faults.Entry{call(0, 500, 0), call(1, 2, 0)}, []int{1, 1}},
		{"hedged copy joins its attempt", []faults.Entry{call(0, 2000, 350), call(300, 340, 0)}, []int{2}},
		{"retry after a timeout is its own", []faults.Entry{call(0, 1000, 1000), call(1005, 1010, 0)}, []int{1, 1}},
		{"hedge failing at once cancels its loser", []faults.Entry{call(0, 2000, 302), call(301, 302, 0)}, []int{2}},
		{"hedge racing a success", []faults.Entry{withStatus(call(0, 300, 0), 201), call(301, 302, 0)}, []int{2}},
		{"retry after a failure is its own", []faults.Entry{call(0, 20, 0), call(20, 40, 0)}, []int{1, 1}},
		{"two attempts of two copies",
			[]faults.Entry{call(0, 400, 0), call(300, 350, 0), call(500, 900, 850), call(800, 850, 0)}, []int{2, 2}},
		{"unsorted input", []faults.Entry{call(300, 340, 0), call(0, 2000, 350)}, []int{2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Attempts(tc.calls)
			var n []int
			for _, a := range got {
				n = append(n, len(a))
			}
			if len(n) != len(tc.want) {
				t.Fatalf("attempts %v; want %v", n, tc.want)
			}
			for i := range n {
				if n[i] != tc.want[i] {
					t.Fatalf("attempts %v; want %v", n, tc.want)
				}
			}
		})
	}
}

func TestOverlapping(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	at := func(from, to int) faults.Entry {
		return faults.Entry{Received: t0.Add(time.Duration(from) * time.Millisecond), Finished: t0.Add(time.Duration(to) * time.Millisecond)}
	}
	// Copies sent together: two attempts to the retry checks, one group here.
	calls := []faults.Entry{at(0, 500), at(1, 2)}
	if n := len(Attempts(calls)); n != 2 {
		t.Errorf("Attempts: %d groups; want 2", n)
	}
	if g := Overlapping(calls, 0); len(g) != 1 || len(g[0]) != 2 {
		t.Errorf("Overlapping: %d groups; want 1 of 2", len(g))
	}
	answered := func(e faults.Entry) faults.Entry { e.Status = 503; return e }
	gone := func(e faults.Entry, ms int) faults.Entry {
		e.ClientGone = t0.Add(time.Duration(ms) * time.Millisecond)
		return e
	}
	for _, tc := range []struct {
		name  string
		calls []faults.Entry
		want  int // groups
	}{
		// A retry started before the journal stamped the answered call's
		// end, within the margin: an attempt of its own.
		{"retry within the stamp's lag", []faults.Entry{answered(at(0, 40)), at(30, 50)}, 2},
		// A winning copy 2 ms in, its loser cancelled at once: one attempt.
		{"winner cancels its loser", []faults.Entry{gone(at(0, 2000), 302), answered(at(300, 301))}, 1},
		// A slow first copy answered long after its hedge began.
		{"hedge of a slow answer", []faults.Entry{answered(at(0, 1300)), gone(at(300, 1301), 1301)}, 1},
		// A copy sent 27 µs after its first, which upstream answered 0.2 ms
		// in (CI32): received before that answer existed, so no retry of
		// it, whatever the margin.
		{"copy before the first's answer", []faults.Entry{func() faults.Entry {
			e := answered(at(0, 0))
			e.Answered, e.Finished = t0.Add(200*time.Microsecond), t0.Add(205*time.Microsecond)
			return e
		}(), {Received: t0.Add(27 * time.Microsecond), Finished: t0.Add(300 * time.Microsecond), ClientGone: t0.Add(296 * time.Microsecond)}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if g := Overlapping(tc.calls, 25*time.Millisecond); len(g) != tc.want {
				t.Errorf("%d groups; want %d", len(g), tc.want)
			}
		})
	}
}

// grpcAnswered marks e a gRPC answer with grpc-status code.
func grpcAnswered(e faults.Entry, code string) faults.Entry {
	e.ResponseHeaders = map[string]string{"Grpc-Status": code}
	return e
}

func withStatus(e faults.Entry, status int) faults.Entry {
	e.Status = status
	return e
}

// TestHarness_Attempts: knowing the declared hedging delay, a copy that
// reaches the dependency when the hedge was due, just after a slow success
// was journaled, is that hedge; a call after a fast success or after a
// failure is not, nor a copy beyond the declared cap.
func TestHarness_Attempts(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	call := func(from, to, status int) faults.Entry {
		return faults.Entry{ID: fmt.Sprint("dependency-", from), Received: t0.Add(time.Duration(from) * time.Millisecond),
			Finished: t0.Add(time.Duration(to) * time.Millisecond), Status: status}
	}
	hedging := &Harness{Tolerance: 50 * time.Millisecond, Policy: Policy{Hedging: HedgingPolicy{Delay: 300 * time.Millisecond}}}
	plain := &Harness{Tolerance: 50 * time.Millisecond}
	for _, tc := range []struct {
		name  string
		h     *Harness
		calls []faults.Entry
		want  []int // copies per attempt
	}{
		{"hedge due as a slow success ended", hedging, []faults.Entry{call(0, 290, 201), call(330, 335, 201)}, []int{2}},
		{"the same without hedging declared", plain, []faults.Entry{call(0, 290, 201), call(330, 335, 201)}, []int{1, 1}},
		{"call long after a fast success", hedging, []faults.Entry{call(0, 5, 201), call(300, 305, 201)}, []int{1, 1}},
		{"call after a slow failure", hedging, []faults.Entry{call(0, 290, 503), call(330, 335, 201)}, []int{1, 1}},
		{"hedge 70 ms after a success that ended when it was due", hedging, []faults.Entry{call(0, 300, 201), call(370, 375, 201)}, []int{2}},
		{"call well after the hedge was due", hedging, []faults.Entry{call(0, 290, 201), call(460, 465, 201)}, []int{1, 1}},
		// A gRPC UNAVAILABLE is an HTTP 200 whose grpc-status says 503:
		// a failure, so the call after it is a retry, not a hedge.
		{"call after a slow gRPC failure", hedging, []faults.Entry{grpcAnswered(call(0, 290, 200), "14"), call(330, 335, 201)}, []int{1, 1}},
		{"hedge due as a slow gRPC success ended", hedging, []faults.Entry{grpcAnswered(call(0, 290, 200), "0"), call(330, 335, 201)}, []int{2}},
		{"a third copy beyond the declared two", hedging,
			[]faults.Entry{call(0, 590, 201), call(300, 590, 0), call(620, 625, 201)}, []int{2, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n []int
			for _, a := range tc.h.Attempts(tc.calls) {
				n = append(n, len(a))
			}
			if !slices.Equal(n, tc.want) {
				t.Fatalf("attempts %v; want %v", n, tc.want)
			}
		})
	}
}

// TestHarness_RacedHedges: an attempt that began when the declared hedging
// sent the failed attempt before it its next copy may be that copy, sent
// by a target that read the failure late, and needs it that late; a call
// off the schedule, after a success, after the declared copies, or with
// no hedging declared is not.
func TestHarness_RacedHedges(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	call := func(from, to, status int) faults.Entry {
		return faults.Entry{ID: fmt.Sprint("dependency-", from), Received: ms(from), Finished: ms(to), Status: status}
	}
	reset := func(from int) faults.Entry { return call(from, from+1, 0) }
	hedging := &Harness{Tolerance: 50 * time.Millisecond, Policy: Policy{Hedging: HedgingPolicy{Delay: 300 * time.Millisecond}}}
	plain := &Harness{Tolerance: 50 * time.Millisecond}
	for _, tc := range []struct {
		name     string
		h        *Harness
		attempts [][]faults.Entry
		n        int
		late     time.Duration
	}{
		{"a copy due 300 ms after a reset", hedging, [][]faults.Entry{{reset(0)}, {reset(310)}, {reset(330)}, {reset(400)}}, 1, 299 * time.Millisecond},
		{"a copy as the failure arrived", hedging, [][]faults.Entry{{call(0, 300, 503)}, {reset(305)}}, 1, time.Millisecond},
		{"a retry at once after the reset", hedging, [][]faults.Entry{{reset(0)}, {reset(20)}}, 0, 0},
		{"a retry well after the hedge was due", hedging, [][]faults.Entry{{reset(0)}, {reset(600)}}, 0, 0},
		{"a call on schedule after a success", hedging, [][]faults.Entry{{call(0, 5, 201)}, {reset(300)}}, 0, 0},
		{"an attempt that had its copies", hedging, [][]faults.Entry{{reset(0), reset(300)}, {reset(600)}}, 0, 0},
		{"no hedging declared", plain, [][]faults.Entry{{reset(0)}, {reset(300)}}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, late, span := tc.h.RacedHedges(tc.attempts)
			if n != tc.n || late != tc.late {
				t.Fatalf("RacedHedges = %d, %s; want %d, %s", n, late, tc.n, tc.late)
			}
			if n > 0 && (span.From.IsZero() || !span.To.After(span.From)) {
				t.Errorf("span %+v: want the wait from the failure to the copy", span)
			}
		})
	}
}

// TestCallCount: a count reads as English, naming attempts only where
// hedged copies joined some.
func TestCallCount(t *testing.T) {
	e := faults.Entry{}
	for _, tc := range []struct {
		calls    int
		attempts []int // copies per attempt
		want     string
	}{
		{1, []int{1}, "1 call"},
		{3, []int{1, 1, 1}, "3 calls"},
		{2, []int{2}, "2 calls in 1 attempt (the others hedged copies, overlapping the first)"},
		{3, []int{2, 1}, "3 calls in 2 attempts (the others hedged copies, overlapping the attempt they copy)"},
	} {
		var attempts [][]faults.Entry
		for _, n := range tc.attempts {
			attempts = append(attempts, slices.Repeat([]faults.Entry{e}, n))
		}
		if got := CallCount(slices.Repeat([]faults.Entry{e}, tc.calls), attempts); got != tc.want {
			t.Errorf("CallCount(%d, %v) = %q, want %q", tc.calls, tc.attempts, got, tc.want)
		}
	}
}
