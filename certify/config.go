package certify

import (
	"io"
	"log/slog"

	"github.com/resilcheck/resilcheck/targets"
)

// Config describes one certification run. Zero values mean the documented
// defaults.
type Config struct {
	// Target is the validated, defaulted target spec (targets.Load or Parse
	// return it so); required. The reference stack is one more kind.
	Target *targets.Target
	// TargetLog receives a process target's output; nil discards it.
	TargetLog io.Writer
	// Suites selects suites by name; empty runs all.
	Suites []string
	// Checks selects checks by ID; empty runs every check of the suites.
	Checks []string
	// Seed drives every random choice; 0 draws one, printed in the report.
	Seed uint64
	// Version is the tool version recorded in the report.
	Version string
	// Reproduce is the command line replaying this run; it is recorded in
	// the report with the seed made explicit.
	Reproduce string
	// Progress is told each phase of the run and each check as it starts
	// and finishes, on the run's goroutine; nil means silent.
	Progress func(Event)
	// Logger receives the proxies' diagnostics; nil discards them.
	Logger *slog.Logger
}
