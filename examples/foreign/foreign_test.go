package foreign

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/resilcheck/resilcheck/certify"
	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/check/builtin"
	"github.com/resilcheck/resilcheck/clients"
	"github.com/resilcheck/resilcheck/expect"
	"github.com/resilcheck/resilcheck/internal/keepfailed"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// zoo lists the services with the runtime each needs and how to make it
// ready; prepare returns a reason to skip, or "" when it is ready.
var zoo = []struct {
	name    string
	runtime string
	prepare func(t *testing.T, spec *targets.Target) string
}{
	{"fastify-orders", "node", prepareNode},
	{"stdlib-orders", "python3", nil},
	{"chi-orders", "go", prepareGo},
	{"nginx-limit-req", "nginx", prepareResilcheck},
	{"hedged-orders", "go", prepareGo},
	{"failsafe-orders", "go", prepareGo},
	{"httpd-proxy", "apache2", prepareResilcheck},
	{"httpd-error-override", "apache2", prepareResilcheck},
	{"varnish-pass", "varnishd", prepareResilcheck},
	{"varnish-retry", "varnishd", prepareResilcheck},
	{"flask-orders", "python3", prepareDebianPython},
}

// checkIDs lists the checks a service is certified by: the client suite
// judges clients (examples/clients), not services.
func checkIDs() []string {
	var ids []string
	for _, e := range check.Catalogue(builtin.Catalogued()) {
		if e.Suite == clients.SuiteName {
			continue
		}
		ids = append(ids, e.ID)
	}
	return ids
}

// TestExpectations_complete holds every service to a verdict with a reason
// for every check resilcheck has, and its spec to the schema.
func TestExpectations_complete(t *testing.T) {
	ids := checkIDs()
	for _, s := range zoo {
		t.Run(s.name, func(t *testing.T) {
			spec, err := targets.Load(filepath.Join(s.name, "target.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			e, err := expect.LoadVerdicts(filepath.Join(s.name, "expectations.yaml"), ids)
			if err != nil {
				t.Fatal(err)
			}
			if len(spec.Tiers) > 0 {
				var tiers []string
				for _, tr := range spec.Tiers {
					tiers = append(tiers, tr.Name)
				}
				if err := e.NeedTiers(tiers); err != nil {
					t.Error(err)
				}
			}
			if e.Service != s.name {
				t.Errorf("service %q, want %q", e.Service, s.name)
			}
			if e.Seed == 0 {
				t.Errorf("no seed: name the one the verdicts were decided at (some checks draw what they exercise)")
			}
			t.Logf("%s: %d pass, %d fail, %d not applicable, %d inconclusive", s.name,
				e.Count(reports.StatusPass), e.Count(reports.StatusFail), e.Count(reports.StatusNotApplicable), e.Count(reports.StatusInconclusive))
		})
	}
}

// zooSelected says whether RESILCHECK_ZOO selects the service: unset, "1"
// or "all" selects every one, otherwise a comma-separated list of names.
func zooSelected(name string) bool {
	v := os.Getenv("RESILCHECK_ZOO")
	return v == "" || v == "1" || v == "all" || slices.Contains(strings.Split(v, ","), name)
}

// zooSkip skips t, or fails it where RESILCHECK_REQUIRE_ZOO=1 (as .ci/run
// sets), so a runtime missing in CI is a failure, not a silent pass.
func zooSkip(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("RESILCHECK_REQUIRE_ZOO") == "1" {
		t.Fatalf(format+" (RESILCHECK_REQUIRE_ZOO=1)", args...)
	}
	t.Skipf(format, args...)
}

// zooAtOnce services are certified at a time: each certification mostly
// waits on its services' four copies, so two at a time keep 2 cores from
// saturating, as the defect matrix's two workers do.
const zooAtOnce = 2

// TestZoo_certify certifies each service through its target.yaml and
// compares every check with expectations.yaml: zero false positives, zero
// misses. A service whose runtime is missing is skipped with the reason.
func TestZoo_certify(t *testing.T) {
	if testing.Short() {
		t.Skip("certifies the zoo's services as processes, over a minute each")
	}
	ids := checkIDs()
	slots := make(chan struct{}, zooAtOnce)
	for _, s := range zoo {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			if !zooSelected(s.name) {
				t.Skipf("RESILCHECK_ZOO does not name %s", s.name)
			}
			if _, err := lookRuntime(s.runtime); err != nil {
				zooSkip(t, "%s needs %s, which is not installed (see examples/foreign/README.md): %v", s.name, s.runtime, err)
			}
			slots <- struct{}{}
			defer func() { <-slots }()
			want, err := expect.LoadVerdicts(filepath.Join(s.name, "expectations.yaml"), ids)
			if err != nil {
				t.Fatal(err)
			}
			spec, err := targets.Load(filepath.Join(s.name, "target.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var tiers []string
			for _, tr := range spec.Tiers {
				tiers = append(tiers, tr.Name)
			}
			if len(tiers) > 0 {
				if err := want.NeedTiers(tiers); err != nil {
					t.Fatal(err)
				}
			}
			if s.prepare != nil {
				if why := s.prepare(t, spec); why != "" {
					zooSkip(t, "%s", why)
				}
			}
			var log strings.Builder
			res, err := certify.Run(context.Background(), certify.Config{Target: spec, Seed: want.Seed, TargetLog: &log})
			if err != nil {
				t.Fatalf("certify: %v\n%s", err, log.String())
			}
			for _, ch := range res.Report.Checks {
				x := want.Checks[ch.ID]
				t.Logf("%s %s: %s (expected %s)", s.name, ch.ID, ch.Status, x.Expect)
				if ch.Status != x.Expect {
					t.Errorf("%s %s: want %s (%s); resilcheck: %s: expected %s; observed %s %s",
						s.name, ch.ID, x.Expect, x.Why, ch.Status, ch.Expected, ch.Observed, ch.Reason)
				} else if len(tiers) > 0 && ch.Status == reports.StatusFail && ch.Tier != x.TierOf() {
					t.Errorf("%s %s: want the failure laid at tier %q (%s); resilcheck: %q: %s", s.name, ch.ID, x.Tier, x.Why, ch.Tier, ch.Observed)
				}
			}
			if len(res.Report.Checks) != len(ids) {
				t.Errorf("%d checks ran, want %d", len(res.Report.Checks), len(ids))
			}
			keepFailed(t, res)
		})
	}
}

// prepareNode runs the service's prepare.sh, as resilcheck matrix does:
// it installs the locked npm dependencies when they are missing.
func prepareNode(t *testing.T, spec *targets.Target) string {
	cmd := exec.Command("bash", "prepare.sh")
	cmd.Dir = spec.Dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Sprintf("%s: prepare.sh failed (no registry?): %v\n%s", filepath.Base(spec.Dir), err, out)
	}
	return ""
}

// prepareDebianPython runs the service's prepare.sh, as resilcheck matrix
// does: it checks that /usr/bin/python3 imports Debian's packages at the
// versions the expectations were read from (the python3 on PATH may be
// another interpreter, with pip's packages).
func prepareDebianPython(t *testing.T, spec *targets.Target) string {
	cmd := exec.Command("bash", "prepare.sh")
	cmd.Dir = spec.Dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Sprintf("%s: prepare.sh failed (Debian's packages missing?): %v\n%s", filepath.Base(spec.Dir), err, out)
	}
	return ""
}

// prepareGo builds a Go service in its own module once, so that its
// startup is not a compile; the spec's command is `go run . ARGS...`.
func prepareGo(t *testing.T, spec *targets.Target) string {
	name := filepath.Base(spec.Dir)
	bin := filepath.Join(t.TempDir(), name)
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = spec.Dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Sprintf("%s: go build failed (no module proxy?): %v\n%s", name, err, out)
	}
	spec.Process.Command = append([]string{bin}, spec.Process.Command[3:]...)
	return ""
}

// prepareResilcheck builds the resilcheck binary that run.sh starts the
// reference service with, behind a proxy tier (nginx, httpd, varnishd).
func prepareResilcheck(t *testing.T, spec *targets.Target) string {
	bin := filepath.Join(t.TempDir(), "resilcheck")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/resilcheck/resilcheck/cmd/resilcheck").CombinedOutput(); err != nil {
		t.Fatalf("go build resilcheck: %v\n%s", err, out)
	}
	if spec.Process.Env == nil {
		spec.Process.Env = map[string]string{}
	}
	spec.Process.Env["RESILCHECK"] = bin
	return ""
}

// lookRuntime finds a runtime on PATH or, for a daemon such as nginx or
// apache2 (Debian's name for httpd) or varnishd, in /usr/sbin, where
// distributions install it outside a user's PATH (run.sh looks there too).
func lookRuntime(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err == nil {
		return p, nil
	}
	if p, err2 := exec.LookPath(filepath.Join("/usr/sbin", name)); err2 == nil {
		return p, nil
	}
	return "", err
}

// keepFailed keeps the report and the journal of t's certification res
// when t failed (RESILCHECK_KEEP_FAILED, as CI sets it): a timing verdict
// a busy runner decided is judged from the exchanges, which the report
// only samples.
func keepFailed(t *testing.T, res *certify.Result) {
	t.Helper()
	if !t.Failed() {
		return
	}
	keepfailed.Report(t, res.Report)
	keepfailed.Hold(t.Name(), res.Report.Seed, res.Journal).Keep(t)
}
