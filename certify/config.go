package certify

import (
	"cmp"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/check/builtin"
	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// Config describes one certification run. Zero values mean the documented
// defaults.
type Config struct {
	// Target is the validated, defaulted target spec (targets.Load or Parse
	// return it so); required. The reference stack is one more kind.
	Target *targets.Target
	// Kinds launches the target by its kind; nil = kinds running and process
	// only. Kind client needs none: Run plays the client's server.
	Kinds launch.Kinds
	// TargetLog receives a process target's output; nil discards it.
	TargetLog io.Writer
	// Suites selects suites by name; empty runs all.
	Suites []string
	// Lanes is how many copies of the target run checks side by side, each
	// behind proxies of its own; 0 means the spec's concurrency (default 1),
	// and 1 runs one check at a time.
	Lanes int
	// Custom are suites of the user's own checks (package check), run
	// after the built-in suites and selected, gated, replayed and reported
	// as they are; nil means the built-in suites alone.
	Custom []check.Suite
	// Checks selects checks by ID; empty runs every check of the suites.
	Checks []string
	// Seed drives every random choice; 0 draws one, printed in the report.
	Seed uint64
	// Explore is the time each exploring property spends generating cases;
	// 0 means the properties' small defaults.
	Explore time.Duration
	// ExploreCases, when > 0, runs exactly that many cases of each property
	// and no time budget: how a failure's reproduce line replays it.
	ExploreCases int
	// Version is the tool version recorded in the report.
	Version string
	// Reproduce is the command line replaying this run; it is recorded in
	// the report with the seed made explicit.
	Reproduce string
	// Progress is told each phase of the run and each check as it starts
	// and finishes, one event at a time (from the goroutine of the copy of
	// the target it ran on, when there are several); nil means silent.
	Progress func(Event)
	// Logger receives the proxies' diagnostics; nil discards them.
	Logger *slog.Logger
	// FailOn overrides the spec's gate.fail_on: the weakest level whose
	// failures fail the run; empty = the spec's, else reports.DefaultFailOn.
	FailOn reports.Level
	// Baseline is an earlier report to compare the run with (new, fixed and
	// unchanged failures); BaselineFile names it in the report.
	Baseline     *reports.Report
	BaselineFile string
	// NewOnly makes the gate count only failures Baseline did not have; it
	// needs Baseline.
	NewOnly bool
}

// kinds returns the kinds Run can launch.
func (cfg Config) kinds() launch.Kinds {
	if cfg.Kinds == nil {
		return launch.Kinds{targets.KindRunning: launch.RunningKind(), targets.KindProcess: launch.ProcessKind()}
	}
	return cfg.Kinds
}

// gate combines the spec's gate section with the overrides of cfg.
func (cfg Config) gate() (reports.Gate, error) {
	spec := cfg.Target.Gate
	g := reports.Gate{FailOn: reports.DefaultFailOn, Source: "default", NewOnly: cfg.NewOnly}
	switch {
	case cfg.FailOn != "":
		g.FailOn, g.Source = cfg.FailOn, "--fail-on"
	case spec.FailOn != "":
		l, err := reports.ParseFailOn(spec.FailOn)
		if err != nil {
			return g, fmt.Errorf("%w: gate.fail_on: %w", ErrConfig, err)
		}
		g.FailOn, g.Source = l, "spec"
	}
	if cfg.NewOnly && cfg.Baseline == nil {
		return g, fmt.Errorf("%w: counting new failures only needs a baseline report", ErrConfig)
	}
	if b := cfg.Baseline; b != nil && b.Target.Name != "" && cfg.Target.Name != "" && b.Target.Name != cfg.Target.Name {
		// Its failures would pass as known ones under NewOnly.
		return g, fmt.Errorf("%w: the baseline %s is a report on target %q; this run certifies %q", ErrConfig, cmp.Or(cfg.BaselineFile, "report"), b.Target.Name, cfg.Target.Name)
	}
	for _, w := range spec.Waivers {
		g.Waivers = append(g.Waivers, reports.Waiver{Check: w.Check, Reason: w.Reason, Expires: w.Expires})
	}
	return g, nil
}

// suites are the service suites of the run: the built-in ones, then
// cfg.Custom.
func (cfg Config) suites() []check.Suite { return append(builtin.Suites(), cfg.Custom...) }
