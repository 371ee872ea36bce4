// Package zootest certifies the zoo's targets for their tests: each
// directory holds a target.yaml, an expectations.yaml (package expect)
// and a prepare.sh that installs its locked packages or builds it.
package zootest

import (
	"cmp"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/resilcheck/resilcheck/certify"
	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/check/builtin"
	"github.com/resilcheck/resilcheck/expect"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// CertifyDirs certifies the target in each of dirs through its
// target.yaml once per variant of its expectations.yaml (the variant's
// break passed as -break), each check ending as the file says. The
// runtimes must be on PATH; prepare.sh runs first.
func CertifyDirs(t *testing.T, dirs []string, runtimes ...string) {
	t.Helper()
	CertifyDirsWith(t, dirs, Options{Runtimes: runtimes})
}

// Options adapt CertifyDirsWith to targets that need more than a runtime.
type Options struct {
	// Runtimes must be on PATH.
	Runtimes []string
	// Variant, when set, adjusts each variant's spec before it is
	// certified, after -break was added: a database of its own, say.
	Variant func(t *testing.T, spec *targets.Target, v expect.Variant)
	// AtOnce is how many of a directory's variants are certified side by
	// side; 0 means the package's AtOnce.
	AtOnce int
}

// CertifyDirsWith is CertifyDirs with opts.
func CertifyDirsWith(t *testing.T, dirs []string, opts Options) {
	t.Helper()
	if testing.Short() {
		t.Skip("installs packages and certifies processes")
	}
	var ids []string
	for _, e := range check.Catalogue(builtin.Catalogued()) {
		ids = append(ids, e.ID)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			for _, rt := range opts.Runtimes {
				if _, err := exec.LookPath(rt); err != nil {
					SkipOrFail(t, "%s needs %s: %v", dir, rt, err)
				}
			}
			prep := exec.Command("bash", "prepare.sh")
			prep.Dir = dir
			if out, err := prep.CombinedOutput(); err != nil {
				SkipOrFail(t, "%s: prepare.sh failed (no registry?): %v\n%s", dir, err, out)
			}
			f, err := expect.Load(filepath.Join(dir, expect.FileName), ids)
			if err != nil {
				t.Fatal(err)
			}
			pool := NewPool(cmp.Or(opts.AtOnce, AtOnce))
			runs := make([]func() Certified, len(f.Variants))
			for i, v := range f.Variants {
				spec := variantSpec(t, dir, v, opts.Variant)
				runs[i] = pool.Go(t, certify.Config{Target: spec, Checks: v.Run, Seed: f.Seed})
			}
			for i, v := range f.Variants {
				t.Run(v.Name, func(t *testing.T) { judgeVariant(t, v, runs[i]()) })
			}
		})
	}
}

// variantSpec loads the target in dir as variant v says: its break passed
// as -break, then adjust's changes.
func variantSpec(t *testing.T, dir string, v expect.Variant, adjust func(*testing.T, *targets.Target, expect.Variant)) *targets.Target {
	t.Helper()
	spec, err := targets.Load(filepath.Join(dir, "target.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if v.Break != "" {
		spec.Process.Command = append(spec.Process.Command, "-break", v.Break)
	}
	if adjust != nil {
		adjust(t, spec, v)
	}
	return spec
}

// maxNoisy is the most checks of one variant's certification that may end
// declined on a noisy runner (check.NoisyRunner, run again and disturbed
// each time) where the variant expects another verdict: the zoo's targets
// are processes sharing the runner's cores, and a starved one spreads or
// bunches what a timing check measures (a sender retrying all at once
// spread its retries over 58 ms in a CI run). A decline is neither a
// false positive nor a miss; bounded, so a check that never judges shows.
const maxNoisy = 1

// judgeVariant holds every check of the certification c to the statuses
// variant v allows, but for at most maxNoisy noisy declines.
func judgeVariant(t *testing.T, v expect.Variant, c Certified) {
	t.Helper()
	res := c.Must(t)
	if res.Report.Aborted != "" {
		t.Fatalf("no check ran: %s\n%s", res.Report.Aborted, c.Log)
	}
	var noisy []string
	for _, ch := range res.Report.Checks {
		switch allowed := v.Allowed(ch.ID); {
		case slices.Contains(allowed, ch.Status):
		case ch.Status == reports.StatusInconclusive && ch.Noisy:
			noisy = append(noisy, ch.ID)
			t.Logf("%s declined on a noisy runner, where %v is expected: %s", ch.ID, allowed, ch.Reason)
		default:
			t.Errorf("%s %s, want %v (%s): expected %s; observed %s%s", ch.ID, ch.Status, allowed, v.WhyOf(ch.ID), ch.Expected, ch.Observed, ch.Reason)
		}
	}
	if len(noisy) > maxNoisy {
		t.Errorf("%d checks declined on a noisy runner (%v), more than the %d a busy CI runner explains", len(noisy), noisy, maxNoisy)
	}
	if len(res.Report.Checks) != len(v.Run) {
		t.Errorf("%d checks ran, want %d", len(res.Report.Checks), len(v.Run))
	}
}

// SkipOrFail skips t, or fails it where RESILCHECK_REQUIRE_ZOO=1 (as
// .ci/run sets), so a runtime missing in CI is a failure, not a silent pass.
func SkipOrFail(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("RESILCHECK_REQUIRE_ZOO") == "1" {
		t.Fatalf(format+" (RESILCHECK_REQUIRE_ZOO=1)", args...)
	}
	t.Skipf(format, args...)
}

// UseBinary has spec run the binary named name that prepare.sh built
// beside its target.yaml, instead of its `go run .`, keeping the flags
// after it: the test then spends no time compiling under the startup
// timeout.
func UseBinary(t *testing.T, spec *targets.Target, name string) {
	t.Helper()
	cmd := spec.Process.Command
	if len(cmd) < 3 || cmd[0] != "go" || cmd[1] != "run" {
		t.Fatalf("%s: the command is %q, want go run . and its flags", spec.Dir, cmd)
	}
	bin, err := filepath.Abs(filepath.Join(spec.Dir, name))
	if err != nil {
		t.Fatal(err)
	}
	spec.Process.Command = append([]string{bin}, cmd[3:]...)
}
