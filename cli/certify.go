package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/resilcheck/resilcheck/certify"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

type certifyOpts struct {
	app       *app
	reference bool
	file      string
	defects   []string
	store     string
	face      string
	suites    []string
	checks    []string
	out       string
	formats   string
	seed      uint64
	explore   time.Duration
	cases     int
	copies    int
	serial    bool
	quiet     bool
	gate      gateOpts
}

func (a *app) newCertifyCmd() *cobra.Command {
	o := &certifyOpts{app: a}
	cmd := &cobra.Command{
		Use:   "certify (--reference [--defect NAME]... [--face grpc] | -f TARGET.yaml)",
		Short: "Certify a service: run the suites under faults and write a pass/fail report",
		Long: `Certify a service: place fault proxies on both sides of it, run the suites,
write the report to --report-dir (report.json, junit.xml, summary.md,
report.html and the journal) and print the verdict.

A run narrowed by --check or --suite leaves a full run's report alone: unless
--report-dir is given, it writes to resilcheck-report/check-ID (the IDs joined
by "+") or resilcheck-report/suite-NAME.

Exit codes: 0 every check passed, 1 a check failed, 2 usage or configuration
error (a target command that cannot start included), 3 inconclusive (target
unhealthy or unreachable, or a dependency's upstream unreachable before the
first check), 4 interrupted (the partial report is written and
says so), 5 internal error.`,
		Example: `  resilcheck certify --reference
  resilcheck certify --reference --defect racy-idempotency
  resilcheck certify --reference --face grpc
  resilcheck certify -f target.yaml --suite idempotency --seed 42`,
		Args:        cobra.NoArgs,
		RunE:        o.run,
		Annotations: map[string]string{onStop: "writing a partial report"},
	}
	f := cmd.Flags()
	f.BoolVar(&o.reference, "reference", false, "certify the built-in reference stack")
	f.StringVarP(&o.file, "file", "f", "", "target spec (YAML); see 'resilcheck target init'")
	f.StringArrayVar(&o.defects, "defect", nil, "switch a defect on in the reference stack (repeatable)")
	f.StringVar(&o.face, "face", "", "the reference stack's face to certify: http (default: the gateway's API) or grpc (the service's gRPC CreatePayment)")
	f.StringVar(&o.store, "store", "", "the reference stack's store: sqlite (default, a temporary file), sqlite:PATH or postgres://…")
	f.StringArrayVar(&o.suites, "suite", nil, "run only this suite (repeatable)")
	f.StringArrayVar(&o.checks, "check", nil, "run only the check with this ID, e.g. IK-07 (repeatable)")
	addReportDir(f, &o.out, defaultReportDir, "o", "report directory (a run narrowed by --check or --suite: a directory inside it)")
	f.StringVar(&o.formats, "format", "console,json,junit,md,html", "report formats: console (stdout), json, junit, md, html")
	f.Uint64Var(&o.seed, "seed", 0, "seed of every random choice (0: draw one; the report prints it)")
	f.DurationVar(&o.explore, "explore", 0, "time each property check spends exploring random cases, e.g. 2m before a release (0: a few seconds each)")
	f.IntVar(&o.cases, "explore-cases", 0, "run N cases of each property check (skipped ones not counted), with no time budget (a failure's reproduce line sets it)")
	f.IntVar(&o.copies, "concurrency", 0, "start N copies of the target and run checks side by side, one per copy, a property on half of them, five at most (kinds process and reference; 0: the spec's concurrency: 1, or 12 for kind reference)")
	f.BoolVar(&o.serial, "serial", false, "one copy of the target, one check at a time, whatever the spec's concurrency (debugging, or a target that cannot take it)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress on stderr (a live line on a terminal, else a line per check)")
	o.gate.addFlags(f)
	_ = cmd.MarkFlagDirname(reportDirFlag)
	_ = cmd.RegisterFlagCompletionFunc("defect", completeDefects)
	_ = cmd.RegisterFlagCompletionFunc("face", cobra.FixedCompletions([]string{"http", "grpc"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("suite", a.completeSuites)
	_ = cmd.RegisterFlagCompletionFunc("check", a.completeChecks)
	return cmd
}

func (o *certifyOpts) run(cmd *cobra.Command, _ []string) error {
	if o.explore < 0 || o.cases < 0 {
		return usagef("--explore and --explore-cases cannot be negative")
	}
	switch {
	case o.serial && o.copies != 0:
		return usagef("give --serial (one copy of the target) or --concurrency N, not both")
	case o.copies < 0:
		return usagef("--concurrency %d: want 0 (the spec's concurrency) or more", o.copies)
	}
	spec, err := o.target()
	if err != nil {
		return err
	}
	formats, err := reports.ParseFormats(o.formats)
	if err != nil {
		return err
	}
	if !reportDirSet(cmd) {
		o.out = narrowedReportDir(o.out, o.suites, o.checks)
	}
	cfg := certify.Config{
		Target: spec, Kinds: Kinds(), Custom: o.app.custom, TargetLog: o.targetLog(cmd),
		Suites: o.suites, Checks: o.checks, Seed: o.seed, Explore: o.explore, ExploreCases: o.cases, Lanes: o.lanes(),
		Version: buildVersion(), Reproduce: o.reproduce(),
	}
	if err := o.gate.apply(&cfg); err != nil {
		return err
	}
	if verbose(cmd) {
		cfg.Logger = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))
	}
	var view *progressView
	if !o.quiet { // --verbose logs would tear a live line: plain lines then
		view = newProgressView(cmd.ErrOrStderr(), !verbose(cmd))
		cfg.Progress = view.Event
		defer context.AfterFunc(cmd.Context(), view.Stopping)()
	}
	res, err := certify.Run(cmd.Context(), cfg)
	view.Close()
	if err != nil {
		return err
	}
	if res.Teardown != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "resilcheck: warning: stopping the target: %v\n", res.Teardown)
	}
	// The console format goes to stdout below; WriteDir skips it.
	reportWrite.Lock() // a second signal waits for the files, not the console
	err = res.Write(o.out, formats)
	reportWrite.Unlock()
	if err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	if slices.Contains(formats, "console") {
		w, _ := reports.WriterFor("console")
		if err := w(cmd.OutOrStdout(), res.Report); err != nil {
			return err
		}
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "report written to %s/\n", o.out)
	return res.Err()
}

// target loads the spec: the file given with -f, or for --reference the
// kind-reference spec its flags describe, through the same Parse path.
func (o *certifyOpts) target() (*targets.Target, error) {
	switch {
	case o.reference == (o.file != ""):
		return nil, usagef("give exactly one of --reference or -f TARGET.yaml")
	case o.file != "" && (len(o.defects) > 0 || o.store != "" || o.face != ""):
		return nil, usagef("--defect, --store and --face apply to --reference; a spec of kind reference sets them under reference:")
	case o.file != "":
		return targets.Load(o.file, o.app.specOptions()...) // a *targets.SpecError: exit 2 with line:column
	}
	t, err := targets.Parse("", referenceSpec(o.defects, o.store, o.face), o.app.specOptions()...)
	if se := (*targets.SpecError)(nil); errors.As(err, &se) {
		// Positions in a spec the user never saw would only mislead.
		se.File = "--reference"
		for i := range se.Problems {
			se.Problems[i].Line, se.Problems[i].Column = 0, 0
		}
	}
	return t, err
}

// referenceSpec is the spec `certify --reference` stands for.
func referenceSpec(defects []string, store, face string) []byte {
	type section struct {
		Defects []string `yaml:"defects,omitempty"`
		Store   string   `yaml:"store,omitempty"`
		Face    string   `yaml:"face,omitempty"`
	}
	b, _ := yaml.Marshal(struct {
		Version   int     `yaml:"version"`
		Kind      string  `yaml:"kind"`
		Reference section `yaml:"reference,omitempty"`
	}{targets.Version, string(targets.KindReference), section{defects, store, face}})
	return b
}

// reproduce renders the command line that replays this run (certify adds
// the seed).
func (o *certifyOpts) reproduce() string {
	parts := []string{"resilcheck certify"}
	if o.reference {
		parts = append(parts, "--reference")
	} else {
		parts = append(parts, "-f", shellWord(o.file))
	}
	for _, d := range o.defects {
		parts = append(parts, "--defect", shellWord(d))
	}
	if o.store != "" {
		parts = append(parts, "--store", shellWord(redactStore(o.store)))
	}
	if o.face != "" {
		parts = append(parts, "--face", shellWord(o.face))
	}

	for _, s := range o.suites {
		parts = append(parts, "--suite", s)
	}
	if o.explore > 0 {
		parts = append(parts, "--explore", o.explore.String()) // a replay explores as long, so it reaches the same case
	}
	if o.cases > 0 {
		parts = append(parts, "--explore-cases", fmt.Sprint(o.cases))
	}
	// A property explores on half the copies the run asks for, a worker
	// with a seed of its own on each: a replay needs as many to draw its
	// cases.
	switch {
	case o.serial:
		parts = append(parts, "--serial")
	case o.copies > 0:
		parts = append(parts, "--concurrency", fmt.Sprint(o.copies))
	}
	return strings.Join(parts, " ")
}

// targetLog is where a process target's output goes: stderr with --verbose,
// else nowhere (its last lines appear in the error if it fails to start).
func (o *certifyOpts) targetLog(cmd *cobra.Command) io.Writer {
	if verbose(cmd) {
		return cmd.ErrOrStderr()
	}
	return nil
}

// lanes is certify.Config.Lanes: one under --serial, else --concurrency
// (0 leaves it to the spec).
func (o *certifyOpts) lanes() int {
	if o.serial {
		return 1
	}
	return o.copies
}
