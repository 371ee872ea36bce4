// Package matrix certifies a set of targets, each against the verdicts its
// expectations file decides from the target's own code, and holds the
// outcome as one table: a row per target, a column per check grouped by
// contract, each cell a verdict with a link to its evidence, and every
// disagreement with the expectations, or between runs, marked. It is what
// `resilcheck matrix` runs and renders.
package matrix

import (
	"time"

	"github.com/resilcheck/resilcheck/reports"
)

// Matrix is a finished run: its columns, its rows, and how it was made.
type Matrix struct {
	// Seed is the run's one seed: each target's certification draws from a
	// seed derived from it, its name and the run's number (TargetSeed),
	// unless its expectations name the seed they were decided at.
	Seed    uint64           `json:"seed"`
	Runs    int              `json:"runs"` // certifications of each target
	Started time.Time        `json:"started"`
	Took    reports.Duration `json:"took"`
	Version string           `json:"resilcheck_version"`
	Columns []Column         `json:"columns"` // every check some row ran, by contract then ID
	Rows    []Row            `json:"rows"`
	// Skipped are directories with a target.yaml and no expectations file:
	// nothing to hold their verdicts to.
	Skipped []string `json:"skipped,omitempty"`
}

// Column is one check.
type Column struct {
	ID    string        `json:"id"`
	Suite string        `json:"suite"` // the contract
	Title string        `json:"title"`
	Level reports.Level `json:"level"`
}

// Row is one target.
type Row struct {
	Name     string            `json:"name"`
	Dir      string            `json:"dir"` // as discovered, slash-separated
	Kind     string            `json:"kind"`
	Versions map[string]string `json:"versions,omitempty"` // what its expectations were read from
	// Reports are the report directories of its runs, relative to the
	// matrix's output directory.
	Reports []string `json:"reports"`
	// Seeds are the seeds its runs drew from: its expectations' where they
	// name one, else derived from the matrix's (TargetSeed).
	Seeds []uint64 `json:"seeds"`
	// Error says why a run certified nothing (a target that never became
	// healthy, a prepare script that failed); its cells are then empty.
	Error string          `json:"error,omitempty"`
	Cells map[string]Cell `json:"cells"` // by check ID
}

// Cell is one target's verdict on one check.
type Cell struct {
	// Status is the verdict of the first run; Runs every run's, in order.
	Status reports.Status   `json:"status"`
	Runs   []reports.Status `json:"runs"`
	Tier   string           `json:"tier,omitempty"` // where a failure was laid
	// Expected are the statuses the expectations allow, and Why their
	// reason, from the target's code.
	Expected []reports.Status `json:"expected"`
	Why      string           `json:"why,omitempty"`
	// Agrees says every run ended as the expectations allow (a failure
	// at the tier they name).
	Agrees bool `json:"agrees"`
	// Unstable says the runs did not all end alike.
	Unstable bool   `json:"unstable"`
	Observed string `json:"observed,omitempty"` // the first run's, or its reason
	Link     string `json:"link"`               // the first run's evidence, relative to the output directory
}

// Disagreements counts the cells that did not end as expected, and the
// rows that certified nothing.
func (m *Matrix) Disagreements() (cells, rows int) {
	for _, r := range m.Rows {
		if r.Error != "" {
			rows++
		}
		for _, c := range r.Cells {
			if !c.Agrees {
				cells++
			}
		}
	}
	return cells, rows
}

// Unstable counts the cells whose runs did not all end alike.
func (m *Matrix) Unstable() int {
	n := 0
	for _, r := range m.Rows {
		for _, c := range r.Cells {
			if c.Unstable {
				n++
			}
		}
	}
	return n
}
