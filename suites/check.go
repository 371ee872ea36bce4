package suites

import (
	"context"
	"fmt"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
)

// Check is one certified assertion: a standards.md ID, where the rule comes
// from, and a function that exercises the target and judges it. Run must
// leave no fault rules behind and must return when ctx is done.
type Check struct {
	ID     string // e.g. "IK-07"
	Suite  string // e.g. "idempotency"
	Title  string
	Source string // citation, e.g. "draft-ietf-httpapi-idempotency-key-header-07 §2.6"
	Level  string // MUST, SHOULD, REC, CONV or HARNESS, as standards.md tags it
	Run    func(ctx context.Context, h *Harness) Result
}

// Result is a check's verdict with what it expected, what it saw and the
// exchanges that prove it.
type Result struct {
	Status         reports.Status
	Expected       string
	Observed       string
	Reason         string // why skipped or inconclusive
	Evidence       []faults.Entry
	Counterexample []string
	Reproduce      string // overrides the default reproduce command
}

// pass, fail, inconclusive and skip build Results; observed and reasons are
// formatted like fmt.Sprintf.
func pass(expected, observed string, ev ...faults.Entry) Result {
	return Result{Status: reports.StatusPass, Expected: expected, Observed: observed, Evidence: ev}
}

func fail(expected, observed string, ev ...faults.Entry) Result {
	return Result{Status: reports.StatusFail, Expected: expected, Observed: observed, Evidence: ev}
}

func inconclusive(format string, a ...any) Result {
	return Result{Status: reports.StatusInconclusive, Reason: fmt.Sprintf(format, a...)}
}

func skip(format string, a ...any) Result {
	return Result{Status: reports.StatusSkipped, Reason: fmt.Sprintf(format, a...)}
}
