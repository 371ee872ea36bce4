package cli

import (
	"os"

	"github.com/spf13/pflag"

	"github.com/resilcheck/resilcheck/certify"
	"github.com/resilcheck/resilcheck/reports"
)

// gateOpts are certify's flags that choose what fails the run.
type gateOpts struct {
	failOn   string
	baseline string
	newOnly  bool
}

func (g *gateOpts) addFlags(f *pflag.FlagSet) {
	f.StringVar(&g.failOn, "fail-on", "", "fail the run on failures at this level and stricter: must, should, recommended or convention (default: the spec's gate.fail_on, else convention: any failure)")
	f.StringVar(&g.baseline, "baseline", "", "an earlier report.json: the report says which failures are new, fixed or unchanged")
	f.BoolVar(&g.newOnly, "fail-on-new", false, "with --baseline: only failures the baseline did not have fail the run")
}

// apply parses the flags into cfg; the baseline is read before the run, so
// a malformed one costs no certification (exit 2).
func (g *gateOpts) apply(cfg *certify.Config) error {
	if g.failOn != "" {
		l, err := reports.ParseFailOn(g.failOn)
		if err != nil {
			return usagef("--fail-on: %w", err)
		}
		cfg.FailOn = l
	}
	if g.newOnly && g.baseline == "" {
		return usagef("--fail-on-new needs --baseline REPORT.json: new is relative to an earlier report")
	}
	cfg.NewOnly = g.newOnly
	if g.baseline == "" {
		return nil
	}
	f, err := os.Open(g.baseline)
	if err != nil {
		return usagef("--baseline: %w", err)
	}
	defer f.Close()
	base, err := reports.Read(f)
	if err != nil {
		return usagef("--baseline %s is not a resilcheck report (report.json of an earlier run): %w", g.baseline, err)
	}
	cfg.Baseline, cfg.BaselineFile = base, g.baseline
	return nil
}
