package payments_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
	"github.com/resilcheck/resilcheck/internal/reference/payments"
)

// slowThen holds attempt n for hold (or until the caller cancels), then
// answers 503.
func slowThen(hold time.Duration) func(int, http.ResponseWriter, *http.Request) bool {
	return func(_ int, w http.ResponseWriter, r *http.Request) bool {
		select {
		case <-time.After(hold):
			http.Error(w, "busy", http.StatusServiceUnavailable)
		case <-r.Context().Done():
		}
		return true
	}
}

func TestServer_ExpiredBudget(t *testing.T) {
	st := openStore(t, "sqlite")
	proc, _ := startProcessor(t)
	rec, rurl := startRecorder(t, proc, nil)
	svc := startService(t, st, rurl)
	for _, h := range [][]string{{"X-Request-Timeout-Ms", "0"}, {"Grpc-Timeout", "0m"}} {
		wantProblem(t, pay(t, svc, "exp", body1, h...), http.StatusGatewayTimeout)
	}
	for _, h := range [][]string{{"X-Request-Timeout-Ms", "-5"}, {"X-Request-Timeout-Ms", "1.5"}, {"Grpc-Timeout", "5x"}} {
		wantProblem(t, pay(t, svc, "exp", body1, h...), http.StatusBadRequest)
	}
	if n := len(rec.drain()); n != 0 {
		t.Errorf("%d processor calls for expired or invalid budgets, want 0", n)
	}
	// Nothing was stored: the same key works once the budget is sane.
	if r := pay(t, svc, "exp", body1, "X-Request-Timeout-Ms", "5000"); r.status != http.StatusCreated {
		t.Errorf("after refusals: %d %s", r.status, r.body)
	}
}

func TestServer_DeadlinePropagation(t *testing.T) {
	st := openStore(t, "sqlite")
	proc, _ := startProcessor(t)
	rec, rurl := startRecorder(t, proc, nil)
	svc := startService(t, st, rurl, payments.WithMaxBudget(8*time.Second))
	for i, tc := range []struct {
		hdr []string
		max int64
	}{
		{[]string{"X-Request-Timeout-Ms", "5000"}, 5000},
		{[]string{"Grpc-Timeout", "3S"}, 3000},
		{nil, 8000},                                       // none: the max budget
		{[]string{"X-Request-Timeout-Ms", "60000"}, 8000}, // clipped to the max budget
	} {
		sent := time.Now()
		r := pay(t, svc, "prop"+strconv.Itoa(i), body1, tc.hdr...)
		elapsed := time.Since(sent)
		if r.status != http.StatusCreated {
			t.Fatalf("%v: %d %s", tc.hdr, r.status, r.body)
		}
		ev := rec.drain()
		got, err := strconv.ParseInt(ev[0].header.Get("X-Request-Timeout-Ms"), 10, 64)
		// Forwarded = budget minus the service's elapsed time, never more.
		if err != nil || got > tc.max || got < tc.max-elapsed.Milliseconds()-1 {
			t.Errorf("%v: forwarded %q, want within [%d, %d]", tc.hdr, ev[0].header.Get("X-Request-Timeout-Ms"),
				tc.max-elapsed.Milliseconds()-1, tc.max)
		}
	}
}

func TestServer_BudgetRunsOut(t *testing.T) {
	for _, tc := range []struct {
		name      string
		defects   defect.Set
		forwarded bool
	}{
		{"correct", nil, true},
		{"defect-no-deadline-propagation", defect.Set{defect.NoDeadlinePropagation: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := openStore(t, "sqlite")
			proc, _ := startProcessor(t)
			rec, rurl := startRecorder(t, proc, slowThen(time.Minute))
			svc, s := startServer(t, st, rurl, payments.WithDefects(tc.defects))
			const budget = 300 * time.Millisecond
			start := time.Now()
			r := pay(t, svc, "slow", body1, "X-Request-Timeout-Ms", "300")
			took := time.Since(start)
			wantProblem(t, r, http.StatusGatewayTimeout)
			if took < budget-10*time.Millisecond {
				t.Errorf("answered after %v, before the %v budget", took, budget)
			}
			s.Close()
			ev := append(rec.wait(t, 1), rec.drain()...)
			if len(ev) != 1 || !ev[0].aborted {
				t.Fatalf("processor saw %d attempts (aborted=%v), want 1 cancelled at the deadline", len(ev), ev[0].aborted)
			}
			if has := ev[0].header.Get("X-Request-Timeout-Ms") != ""; has != tc.forwarded {
				t.Errorf("X-Request-Timeout-Ms forwarded=%v, want %v", has, tc.forwarded)
			}
			// The release lets the retry re-drive at once.
			if r := pay(t, svc, "slow", body1, "X-Request-Timeout-Ms", "300"); r.status == http.StatusConflict {
				t.Errorf("retry after a 504 got 409: the claim was not released")
			}
		})
	}
}

// TestServer_WorkAfterDeadline: the defect answers the caller on time but
// keeps calling the processor past the caller's deadline.
func TestServer_WorkAfterDeadline(t *testing.T) {
	for _, tc := range []struct {
		name     string
		defects  defect.Set
		late     bool
		attempts int
	}{
		{"correct", nil, false, 1},
		{"defect", defect.Set{defect.WorkAfterDeadline: true}, true, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := openStore(t, "sqlite")
			proc, _ := startProcessor(t)
			rec, rurl := startRecorder(t, proc, slowThen(250*time.Millisecond))
			svc, s := startServer(t, st, rurl, payments.WithDefects(tc.defects))
			start := time.Now()
			r := pay(t, svc, "wad", body1, "X-Request-Timeout-Ms", "200")
			wantProblem(t, r, http.StatusGatewayTimeout)
			s.Close() // waits for detached work
			deadline := start.Add(200 * time.Millisecond)
			var late int
			for _, e := range append(rec.wait(t, tc.attempts), rec.drain()...) {
				if e.at.After(deadline) {
					late++
				}
			}
			if (late > 0) != tc.late {
				t.Errorf("%d attempts started after the deadline; want late=%v", late, tc.late)
			}
		})
	}
}
