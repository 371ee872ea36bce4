package clients

import (
	"fmt"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
)

// SuiteName is the client suite's name in reports and the catalogue.
const SuiteName = "clients"

// Check is one assertion of the client suite: an ID, the public source of
// the rule and how strongly it is stated, what the client must declare for
// it to apply, and a judge of the scenarios' runs.
type Check struct {
	ID     string
	Title  string
	Source string
	Level  reports.Level
	Needs  []Need
	Judge  func(j *judging) Verdict
}

// Need is something the client must declare for a check to apply.
type Need struct {
	Name  string
	Doc   string
	Unmet func(p Policy) string // why it is unmet, or ""
}

// Verdict is a check's judgement with what it expected, what it saw and
// the attempts that prove it.
type Verdict struct {
	Status   reports.Status
	Expected string
	Observed string
	Reason   string
	Evidence []faults.Entry
}

func pass(expected, observed string, ev ...faults.Entry) Verdict {
	return Verdict{Status: reports.StatusPass, Expected: expected, Observed: observed, Evidence: ev}
}

func fail(expected, observed string, ev ...faults.Entry) Verdict {
	return Verdict{Status: reports.StatusFail, Expected: expected, Observed: observed, Evidence: ev}
}

func inconclusive(format string, a ...any) Verdict {
	return Verdict{Status: reports.StatusInconclusive, Reason: fmt.Sprintf(format, a...)}
}

func notApplicable(format string, a ...any) Verdict {
	return Verdict{Status: reports.StatusNotApplicable, Reason: fmt.Sprintf(format, a...)}
}

// judging is what a judge reads: the policy, the slack and the runs.
type judging struct {
	policy Policy
	tol    Tolerance
	runs   []*ScenarioRun
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

// judge runs the check, unless a need is unmet, and reports it.
func (c Check) judge(j *judging) reports.Check {
	start := time.Now()
	v := Verdict{}
	for _, n := range c.Needs {
		if why := n.Unmet(j.policy); why != "" {
			v = notApplicable("%s", why)
			break
		}
	}
	if v.Status == "" {
		v = c.Judge(j)
	}
	rc := reports.Check{
		ID: c.ID, Suite: SuiteName, Title: c.Title, Source: c.Source, Level: c.Level,
		Status: v.Status, Expected: v.Expected, Observed: v.Observed, Reason: v.Reason,
		Duration: reports.Duration(time.Since(start)),
	}
	for _, e := range v.Evidence {
		rc.Evidence = append(rc.Evidence, exchange(e))
	}
	return rc
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
