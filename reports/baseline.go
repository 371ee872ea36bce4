package reports

import (
	"slices"
	"time"
)

// Baseline compares a run with an earlier report of the same target: which
// failures are new, which were fixed and which remain. Checks are matched
// by ID (a report holds one entry per check ID).
type Baseline struct {
	File    string    `json:"file"`    // the baseline report as given
	Target  string    `json:"target"`  // the target the baseline certified
	Started time.Time `json:"started"` // when the baseline run started
	Seed    uint64    `json:"seed"`
	// New lists checks failing now that the baseline did not fail.
	New []string `json:"new"`
	// Fixed lists checks the baseline failed that pass or do not apply now.
	Fixed []string `json:"fixed"`
	// Unchanged lists checks failing in both runs.
	Unchanged []string `json:"unchanged"`
	// NotRechecked lists checks the baseline failed that this run did not
	// judge (not run, or inconclusive): neither fixed nor still failing.
	NotRechecked []string `json:"not_rechecked,omitempty"`
}

// Change is how a check's failure compares with the baseline.
type Change string

// The changes a check can carry; a check that passed (or did not fail) in
// both runs carries none.
const (
	ChangeNew       Change = "new"       // fails now, did not in the baseline
	ChangeFixed     Change = "fixed"     // failed in the baseline, passes or does not apply now
	ChangeUnchanged Change = "unchanged" // fails in both
)

// CompareBaseline records in r how its checks compare with base, read from
// file, and marks each check's Change. It does not change the verdict: a
// gate with NewOnly applied afterwards does.
func (r *Report) CompareBaseline(base *Report, file string) {
	failed := map[string]bool{}
	for _, c := range base.Checks {
		if c.Status == StatusFail {
			failed[c.ID] = true
		}
	}
	d := &Baseline{File: file, Target: base.Target.Name, Started: base.Started, Seed: base.Seed,
		New: []string{}, Fixed: []string{}, Unchanged: []string{}}
	judged := map[string]bool{}
	for i := range r.Checks {
		c := &r.Checks[i]
		c.Change = ""
		switch was := failed[c.ID]; {
		case c.Status == StatusFail && was:
			c.Change, d.Unchanged = ChangeUnchanged, append(d.Unchanged, c.ID)
		case c.Status == StatusFail:
			c.Change, d.New = ChangeNew, append(d.New, c.ID)
		case was && (c.Status == StatusPass || c.Status == StatusNotApplicable):
			c.Change, d.Fixed = ChangeFixed, append(d.Fixed, c.ID)
		}
		if c.Status != StatusInconclusive {
			judged[c.ID] = true
		}
	}
	for _, c := range base.Checks {
		if failed[c.ID] && !judged[c.ID] && !slices.Contains(d.NotRechecked, c.ID) {
			d.NotRechecked = append(d.NotRechecked, c.ID)
		}
	}
	r.Baseline = d
}
