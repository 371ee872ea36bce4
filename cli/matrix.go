package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/resilcheck/resilcheck/certify"
	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/clients"
	"github.com/resilcheck/resilcheck/internal/matrix"
)

// errMatrixDisagrees is a matrix with a cell off its expectations in
// some run (exit 1, whatever else); errMatrixUncertified one where a target
// could not be certified, and nothing disagreed (exit 3).
var (
	errMatrixDisagrees   = errors.New("the matrix disagrees with its expectations")
	errMatrixUncertified = errors.New("a target in the matrix was not certified")
)

const (
	defaultMatrixDir = "resilcheck-matrix"
	// selfVariable names the resilcheck binary for the targets a matrix
	// starts (the zoo's proxy tiers start its reference service).
	selfVariable = "RESILCHECK"
)

type matrixOpts struct {
	out        string
	runs, jobs int
	seed       uint64
	quiet      bool
	list       bool
}

func (a *app) newMatrixCmd() *cobra.Command {
	o := &matrixOpts{}
	cmd := &cobra.Command{
		Use:   "matrix [DIR...]",
		Short: "Certify a directory of targets against their expectations and render the matrix",
		Long: `Certify every target under the directories given (each directory holding a
target.yaml and an expectations.yaml, whose verdicts are read from the target's
own code), and render one table: a row per target, a column per check grouped
by contract, each cell a verdict linking to its evidence. A cell that disagrees
with the expectations, or whose runs (--runs) did not end alike, is marked.

A prepare.sh beside a target's spec runs once, in its directory, before it is
certified (to install locked packages, say). Process and client targets find
the resilcheck binary running the matrix as "resilcheck" first on PATH, and in
$RESILCHECK unless it is set.

Writes matrix.html (one self-contained page), matrix.md and matrix.json, and
each run's report beside them. A target certifies at the seed its
expectations name (seed:), else at one drawn from the matrix's --seed. Exit 0
when every run of every cell ends as its expectations allow (a cell whose runs
differ is marked unstable either way), 1 otherwise, else 3 when a target could
not be certified, 2 for a spec or expectations file that does not load, 4 when
stopped (the matrix so far is written, its unreached targets saying so).`,
		Example: `  resilcheck matrix examples/foreign examples/clients
  resilcheck matrix --runs 2 -o site examples/`,
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, args, a) },
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "out", "o", defaultMatrixDir, "directory for the matrix and every run's report")
	f.IntVar(&o.runs, "runs", 1, "certifications of each target; with 2 or more a cell whose runs differ is unstable")
	f.IntVar(&o.jobs, "jobs", 2, "targets certified at a time")
	f.Uint64Var(&o.seed, "seed", 0, "the matrix's seed (0 draws one; the page prints it)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no line per finished run on stderr")
	f.BoolVar(&o.list, "list", false, "list the targets found, with their kind and checks, and certify nothing")
	_ = cmd.MarkFlagDirname("out")
	return cmd
}

func (o *matrixOpts) run(cmd *cobra.Command, dirs []string, a *app) error {
	switch {
	case o.runs < 1:
		return usagef("--runs %d: want 1 or more", o.runs)
	case o.jobs < 1:
		return usagef("--jobs %d: want 1 or more", o.jobs)
	}
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	for _, d := range dirs {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return usagef("matrix: %s is not a directory", d)
		}
	}
	if o.out == "" {
		return usagef("matrix: -o names no directory")
	}
	// Before the specs are read: a command naming resilcheck must exist.
	defer offerSelf()()
	cat := matrix.NewCatalogue(check.Catalogue(a.catalogued()), clients.SuiteName)
	systems, skipped, err := matrix.Discover(dirs, cat, a.specOptions()...)
	if err != nil {
		return usageError{err}
	}
	if len(systems) == 0 {
		return usagef("matrix: no target under %v has a target.yaml with an expectations.yaml beside it", dirs)
	}
	if o.list {
		for _, s := range systems {
			fmt.Fprintf(cmd.OutOrStdout(), "%s\t%s\t%s\t%d checks\n", s.Name, s.Spec.Kind, filepath.ToSlash(s.Dir), len(s.IDs))
		}
		for _, d := range skipped {
			fmt.Fprintf(cmd.OutOrStdout(), "# %s: no expectations.yaml, left out\n", d)
		}
		return nil
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return usagef("matrix: -o %s: %v", o.out, err)
	}
	var log io.Writer = cmd.ErrOrStderr()
	if o.quiet {
		log = io.Discard
	}
	fmt.Fprintf(log, "matrix: %d targets, %d at a time, %d run(s) each\n", len(systems), o.jobs, o.runs)
	m, runErr := matrix.Run(cmd.Context(), systems, cat, matrix.Options{
		Out: o.out, Runs: o.runs, Jobs: o.jobs, Seed: o.seed, Log: log,
		Base: certify.Config{Kinds: Kinds(), Custom: a.custom, Version: buildVersion()},
	})
	if m == nil {
		return runErr
	}
	m.Skipped = skipped
	reportWrite.Lock()
	err = matrix.Write(o.out, m)
	reportWrite.Unlock()
	if err != nil {
		return fmt.Errorf("writing the matrix: %w", err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s\nmatrix written to %s/%s (seed %d)\n", m.Verdict(), o.out, matrix.HTMLFile, m.Seed)
	if runErr != nil {
		return fmt.Errorf("%w: %w", certify.ErrInterrupted, runErr)
	}
	// An unstable cell whose every run the expectations allow (a may_fail)
	// is shown, not failed: any other disagrees.
	cells, rows := m.Disagreements()
	switch {
	case cells > 0:
		return errMatrixDisagrees
	case rows > 0:
		return errMatrixUncertified
	}
	return nil
}

// offerSelf makes the resilcheck running the matrix the one its targets
// start: $RESILCHECK names it unless already set, and a directory holding
// only a link to it, named as the command is on this system, comes first
// on PATH, so `resilcheck ...` runs this build whatever else PATH holds;
// nothing else on PATH changes order. Where no link can be made (Windows
// without the privilege) only $RESILCHECK is offered. The returned
// function removes the directory.
func offerSelf() (undo func()) {
	self, err := os.Executable()
	if err != nil {
		return func() {}
	}
	if os.Getenv(selfVariable) == "" {
		_ = os.Setenv(selfVariable, self)
	}
	dir, err := os.MkdirTemp("", "resilcheck-matrix-bin-")
	if err != nil {
		return func() {}
	}
	undo = func() { _ = os.RemoveAll(dir) }
	if err := os.Symlink(self, filepath.Join(dir, "resilcheck"+filepath.Ext(self))); err != nil {
		undo()
		return func() {}
	}
	_ = os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return undo
}
