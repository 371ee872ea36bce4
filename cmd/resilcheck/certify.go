package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/resilcheck/resilcheck/certify"
	"github.com/resilcheck/resilcheck/reference/defect"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

type certifyOpts struct {
	reference bool
	file      string
	defects   []string
	suites    []string
	checks    []string
	out       string
	formats   string
	seed      uint64
	quiet     bool
	verbose   bool
}

func newCertifyCmd() *cobra.Command {
	o := &certifyOpts{}
	cmd := &cobra.Command{
		Use:   "certify (--reference [--defect NAME]... | -f TARGET.yaml)",
		Short: "Certify a service: run the suites under faults and write a pass/fail report",
		Long: `Certify a service: place fault proxies on both sides of it, run the suites,
write the report to --out (report.json, junit.xml, summary.md, report.html and
the journal) and print the verdict.

Exit codes: 0 every check passed, 1 a check failed, 2 usage error,
3 inconclusive (target unhealthy or unreachable), 4 interrupted (the partial
report is written and says so), 5 internal error.`,
		Example: `  resilcheck certify --reference
  resilcheck certify --reference --defect racy-idempotency
  resilcheck certify -f target.yaml --suite idempotency --seed 42`,
		Args: cobra.NoArgs,
		RunE: o.run,
	}
	f := cmd.Flags()
	f.BoolVar(&o.reference, "reference", false, "certify the built-in reference stack")
	f.StringVarP(&o.file, "file", "f", "", "target spec (YAML); see 'resilcheck target init'")
	f.StringArrayVar(&o.defects, "defect", nil, "switch a defect on in the reference stack (repeatable)")
	f.StringArrayVar(&o.suites, "suite", nil, "run only this suite (repeatable)")
	f.StringArrayVar(&o.checks, "check", nil, "run only the check with this ID, e.g. IK-07 (repeatable)")
	f.StringVarP(&o.out, "out", "o", "resilcheck-report", "report directory")
	f.StringVar(&o.formats, "format", "console,json,junit,md,html", "report formats: console (stdout), json, junit, md, html")
	f.Uint64Var(&o.seed, "seed", 0, "seed of every random choice (0: draw one; the report prints it)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress lines on stderr")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "show a process target's output on stderr")
	return cmd
}

func (o *certifyOpts) run(cmd *cobra.Command, _ []string) error {
	if o.reference == (o.file != "") {
		return usagef("give exactly one of --reference or -f TARGET.yaml")
	}
	var spec *targets.Target
	if o.file != "" {
		if len(o.defects) > 0 {
			return usagef("--defect applies to --reference; a spec of kind reference lists its defects under reference.defects")
		}
		var err error
		if spec, err = targets.Load(o.file); err != nil {
			return err // a *targets.SpecError: exit 2 with line:column
		}
	}
	set, err := defect.Parse(o.defects...)
	if err != nil {
		return usageError{err}
	}
	formats, err := reports.ParseFormats(o.formats)
	if err != nil {
		return usageError{err}
	}
	cfg := certify.Config{
		Target: spec, TargetLog: o.targetLog(cmd),
		Defects: set, Suites: o.suites, Checks: o.checks, Seed: o.seed,
		Version: buildVersion(), Reproduce: o.reproduce(),
	}
	if !o.quiet {
		cfg.Progress = cmd.ErrOrStderr()
	}
	res, err := certify.Run(cmd.Context(), cfg)
	switch {
	case errors.Is(err, certify.ErrConfig):
		return usageError{err}
	case errors.Is(err, certify.ErrUnhealthy), errors.Is(err, targets.ErrUnhealthy):
		return withCode(exitInconclusive, err)
	case err != nil:
		return err
	}
	// The console format goes to stdout below; WriteDir skips it.
	if err := res.Write(o.out, formats); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	rep := res.Report
	if slices.Contains(formats, "console") {
		w, _ := reports.WriterFor("console")
		if err := w(cmd.OutOrStdout(), rep); err != nil {
			return err
		}
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "report written to %s/\n", o.out)
	return verdictError(rep)
}

// verdictError turns the report's verdict into the command's outcome.
func verdictError(rep *reports.Report) error {
	switch rep.Verdict {
	case reports.VerdictPass:
		return nil
	case reports.VerdictFail:
		return withCode(exitFail, errors.New("certification failed"))
	case reports.VerdictInterrupted:
		return withCode(exitInterrupted, errors.New("interrupted: "+rep.Interrupted+"; the partial report says so"))
	default:
		return withCode(exitInconclusive, errors.New("certification inconclusive"))
	}
}

// reproduce renders the command line that replays this run (certify adds
// the seed).
func (o *certifyOpts) reproduce() string {
	parts := []string{"resilcheck certify"}
	if o.reference {
		parts = append(parts, "--reference")
	} else {
		parts = append(parts, "-f", o.file)
	}
	for _, d := range o.defects {
		parts = append(parts, "--defect", d)
	}
	for _, s := range o.suites {
		parts = append(parts, "--suite", s)
	}
	return strings.Join(parts, " ")
}

// targetLog is where a process target's output goes: stderr with --verbose,
// else nowhere (its last lines appear in the error if it fails to start).
func (o *certifyOpts) targetLog(cmd *cobra.Command) io.Writer {
	if o.verbose {
		return cmd.ErrOrStderr()
	}
	return nil
}
