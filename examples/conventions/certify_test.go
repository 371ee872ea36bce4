package main

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/certify"
	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/check/builtin"
	"github.com/resilcheck/resilcheck/expect"
	"github.com/resilcheck/resilcheck/internal/zootest"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// specChanges are the changes to target.yaml that expectations.yaml's
// variants name in `spec`.
var specChanges = map[string]func(*targets.Target){
	"key-ttl-1s":     func(tg *targets.Target) { tg.Conventions.KeyTTL = time.Second },
	"probe-only":     func(tg *targets.Target) { tg.Effects.Ledger = targets.Ledger{} },
	"transfers-only": func(tg *targets.Target) { tg.Policy.Idempotency.Operations = []string{"create-transfer"} },
	"declares-equal": backoff("equal", 0), "declares-decorrelated": backoff("decorrelated", 0),
	"declares-exponential": backoff("exponential", 0.1),
	"quota-5":              func(tg *targets.Target) { tg.Process.Command = append(tg.Process.Command, "-quota", "5") },
}

func backoff(kind string, jitter float64) func(*targets.Target) {
	return func(tg *targets.Target) {
		tg.Policy.Retry.Backoff, tg.Policy.Retry.Jitter = targets.BackoffKind(kind), jitter
	}
}

func checkIDs() []string {
	var ids []string
	for _, e := range check.Catalogue(builtin.Catalogued()) {
		ids = append(ids, e.ID)
	}
	return ids
}

// TestExpectations_consistent holds expectations.yaml to the registry, its
// breaks to the service's and its spec changes to specChanges.
func TestExpectations_consistent(t *testing.T) {
	f, err := expect.Load(expect.FileName, checkIDs())
	if err != nil {
		t.Fatal(err)
	}
	used := map[breakName]bool{}
	for _, v := range f.Variants {
		if _, ok := breaks[breakName(v.Break)]; v.Break != "" && !ok {
			t.Errorf("variant %s: the service has no break %q", v.Name, v.Break)
		}
		used[breakName(v.Break)] = true
		if _, ok := specChanges[v.Spec]; v.Spec != "" && !ok {
			t.Errorf("variant %s: no spec change %q in specChanges", v.Name, v.Spec)
		}
	}
	for b := range breaks {
		if !used[b] {
			t.Errorf("break %s appears in no variant", b)
		}
	}
}

// TestConventions_certify certifies the service through target.yaml, as
// `resilcheck certify -f` does, once per variant of expectations.yaml: green
// as written (every check), and with one convention broken or one spec
// field changed (only the checks the variant runs), each check ending as
// the file says.
func TestConventions_certify(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the service and certifies it as a process once per variant")
	}
	f, err := expect.Load(expect.FileName, checkIDs())
	if err != nil {
		t.Fatal(err)
	}
	if f.Seed == 0 {
		t.Fatal("expectations.yaml names no seed: the verdicts were decided at one")
	}
	bin := filepath.Join(t.TempDir(), "conventions")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// The variants are certified side by side (each mostly waits on its
	// process) and judged one subtest each.
	pool := zootest.NewPool(zootest.AtOnce)
	runs := make([]func() zootest.Certified, len(f.Variants))
	for i, v := range f.Variants {
		spec, err := targets.Load("target.yaml")
		if err != nil {
			t.Fatal(err)
		}
		spec.Process.Command[0] = bin
		if v.Break != "" {
			spec.Process.Command = append(spec.Process.Command, "-break", v.Break)
		}
		if v.Spec != "" {
			specChanges[v.Spec](spec)
		}
		runs[i] = pool.Go(t, certify.Config{Target: spec, Checks: v.Run, Seed: f.Seed})
	}
	for i, v := range f.Variants {
		t.Run(v.Name, func(t *testing.T) {
			res := runs[i]().Must(t)
			for _, ch := range res.Report.Checks {
				if allowed := v.Allowed(ch.ID); !slices.Contains(allowed, ch.Status) {
					why := v.WhyOf(ch.ID)
					if why == "" {
						why = v.Why
					}
					t.Errorf("%s %s, want %v (%s): expected %s; observed %s%s", ch.ID, ch.Status, allowed, why, ch.Expected, ch.Observed, ch.Reason)
				}
				if v.Spec == "key-ttl-1s" && ch.Status == reports.StatusNotApplicable && !strings.Contains(ch.Reason, "key_ttl") {
					t.Errorf("%s not applicable for another reason than the key TTL: %s", ch.ID, ch.Reason)
				}
			}
			if want := len(v.Run); want > 0 && len(res.Report.Checks) != want {
				t.Errorf("%d checks ran, want %d", len(res.Report.Checks), want)
			}
		})
	}
}
