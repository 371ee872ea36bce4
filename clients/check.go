package clients

import (
	"context"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
)

// SuiteName is the client suite's name in reports and the catalogue.
const SuiteName = "clients"

// Config is the client suite's settings: what the client declares and the
// slack of the time bounds. Its checks read it with
// check.SuiteConfig[Config](h, SuiteName).
type Config struct {
	Policy    Policy
	Tolerance Tolerance // zero fields mean the defaults
	limits    limits    // the harness's bounds on a call, as Run's Options set them
}

// judging is what a judge reads: the policy, the slack and the runs.
type judging struct {
	policy Policy
	tol    Tolerance
	runs   []*ScenarioRun
	// stalled is how late the runner woke at worst between two instants
	// while the scenarios ran (check.Stalls.Worst): the clients' processes
	// share its cores, so what delayed it may have spread their retries.
	// Nil: never.
	stalled func(from, to time.Time) time.Duration
	// slowed is how late the runner's wake-ups came in all between two
	// instants (check.Stalls.Within): many short delays add up to one.
	// Nil: never.
	slowed func(from, to time.Time) time.Duration
}

// worstStall is j.stalled, or 0 when it is nil.
func (j *judging) worstStall(from, to time.Time) time.Duration {
	if j.stalled == nil {
		return 0
	}
	return j.stalled(from, to)
}

// lateness is j.slowed, or 0 when it is nil.
func (j *judging) lateness(from, to time.Time) time.Duration {
	if j.slowed == nil {
		return 0
	}
	return j.slowed(from, to)
}

// ran returns the runs that happened.
func (j *judging) ran() []*ScenarioRun {
	var out []*ScenarioRun
	for _, r := range j.runs {
		if r.Skipped == "" {
			out = append(out, r)
		}
	}
	return out
}

// runsKey keeps the scenario runs in a harness (check.Harness.Shared): Run
// collects them all before any check judges, as the client's calls run at
// once and each check judges every one of them.
type runsKey struct{}

// keptRuns returns where h keeps the runs its client checks judge; nil
// until Run has put them there.
func keptRuns(h *check.Harness) *[]*ScenarioRun {
	return h.Shared(runsKey{}, func() any { return new([]*ScenarioRun) }).(*[]*ScenarioRun)
}

type stallsKey struct{}

// keptStalls returns where h keeps the runner's stalls while the runs ran.
func keptStalls(h *check.Harness) *check.Stalls {
	return h.Shared(stallsKey{}, func() any { return new(check.Stalls) }).(*check.Stalls)
}

// judged makes a judge of the scenario runs a check's Run: the runs are
// those Run kept in the case's harness, the policy and tolerance those of
// the suite's Config there.
func judged(judge func(*judging) check.Result) func(context.Context, *check.Case) check.Result {
	return func(_ context.Context, c *check.Case) check.Result {
		runs := *keptRuns(c.Harness)
		if runs == nil {
			return check.Inconclusive("no scenario runs to judge: the client suite judges the calls clients.Run makes")
		}
		cfg := check.SuiteConfig[Config](c.Harness, SuiteName)
		return judge(&judging{policy: cfg.Policy, tol: cfg.Tolerance.withDefaults(), runs: runs, stalled: keptStalls(c.Harness).Worst, slowed: keptStalls(c.Harness).Within})
	}
}

// policyOf is the policy h's client suite judges by.
func policyOf(h *check.Harness) Policy { return check.SuiteConfig[Config](h, SuiteName).Policy }

// evidence is a client check's report evidence: every attempt it names,
// with its scenario. A check names a few calls' attempts, not a load, so
// nothing is sampled.
func evidence(ev []faults.Entry) []reports.Exchange {
	var out []reports.Exchange
	for _, e := range ev {
		out = append(out, exchange(e))
	}
	return out
}

// exchange converts a server entry into report evidence; Case is the scenario.
func exchange(e faults.Entry) reports.Exchange {
	x := reports.Exchange{
		ID: e.Seq, Side: e.Side, Case: caseOf(e.Path), Method: e.Method, Path: e.Path,
		Headers: e.Headers, Status: e.Status, Fault: e.Fault, At: reports.Duration(max(e.Offset(e.Received), 0)),
	}
	if !e.Finished.IsZero() {
		x.Took = reports.Duration(e.Finished.Sub(e.Received))
	}
	var notes []string
	if ra := e.ResponseHeader("Retry-After"); ra != "" {
		notes = append(notes, "Retry-After: "+ra)
	}
	if e.Status == 0 {
		notes = append(notes, answer(e)) // reset, or stalled until the client left
	}
	x.Note = strings.Join(notes, "; ")
	return x
}

// caseOf returns the run a scenario path belongs to.
func caseOf(path string) string {
	id, _, _ := strings.Cut(strings.TrimPrefix(path, "/scenarios/"), "/")
	return id
}
