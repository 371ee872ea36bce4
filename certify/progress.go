package certify

import (
	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/reports"
)

// Event is one step of a run, as Config.Progress is told it: a phase before
// the checks (the target starting, its health awaited), then each check
// starting and finishing.
type Event struct {
	// Phase names what the run is doing when no check runs, e.g. "starting
	// the target"; empty for check events.
	Phase string
	// Total is the number of checks the run will run; Done how many have
	// finished, this one included when Finished.
	Total, Done int
	// Check is the check starting or finished.
	Check check.Check
	// Finished is set when Check has finished, with its Result.
	Finished bool
	Result   reports.Check
}

// Phases a run reports before its checks.
const (
	PhaseStarting = "starting the target"
	PhaseHealth   = "waiting for the target to answer its health check"
)

// progressFunc adapts f to the suites runner, counting finished checks.
func progressFunc(f func(Event), total int) check.Progress {
	if f == nil {
		return nil
	}
	done := 0
	return func(c check.Check, finished bool, res reports.Check) {
		if finished {
			done++
		}
		f(Event{Total: total, Done: done, Check: c, Finished: finished, Result: res})
	}
}
