package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resilcheck/resilcheck/certify"
	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/cli"
	"github.com/resilcheck/resilcheck/examples/customcheck/replayheader"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// TestCertify_goAPI certifies the reference with CX-01 beside a built-in
// check through the Go API: CX-01 passes on the correct reference and
// fails where the service ignores keys (defect no-idempotency), so the
// retry is a second charge and says nothing of a replay.
func TestCertify_goAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the reference stack")
	}
	for _, c := range []struct {
		spec string
		want map[string]reports.Status
	}{
		{"kind: reference\n", map[string]reports.Status{"CX-01": reports.StatusPass, "IK-04": reports.StatusPass}},
		{"kind: reference\nreference: {defects: [no-idempotency]}\n", map[string]reports.Status{"CX-01": reports.StatusFail, "IK-04": reports.StatusFail}},
	} {
		spec, err := targets.Parse("", []byte(c.spec), cli.SpecOptions(replayheader.Suite())...)
		if err != nil {
			t.Fatal(err)
		}
		res, err := certify.Run(context.Background(), certify.Config{
			Target: spec, Kinds: cli.Kinds(), Seed: 7,
			Custom: []check.Suite{replayheader.Suite()}, Checks: []string{"IK-04", "CX-01"},
		})
		if err != nil {
			t.Fatalf("%q: Run: %v", c.spec, err)
		}
		got := map[string]reports.Status{}
		for _, ch := range res.Report.Checks {
			got[ch.ID] = ch.Status
			if ch.ID == "CX-01" && (ch.Suite != replayheader.Name || ch.Level != reports.LevelConvention || ch.Source == "" || len(ch.Evidence) == 0) {
				t.Errorf("%q: CX-01 reported without its suite, level, source or evidence: %+v", c.spec, ch)
			}
		}
		for id, st := range c.want {
			if got[id] != st {
				t.Errorf("%q: %s = %q, want %q (all: %v)", c.spec, id, got[id], st, got)
			}
		}
	}
}

// TestCommand: the resilcheck this module builds lists CX-01, selects,
// replays and reports it as a built-in check, and takes a waiver for it.
func TestCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and starts the reference stack")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "resilcheck-custom")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run := func(args ...string) (int, string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			return ee.ExitCode(), string(out)
		case err != nil:
			t.Fatalf("%v: %v", args, err)
		}
		return 0, string(out)
	}

	if code, out := run("checks", "--format", "json"); code != 0 || !strings.Contains(out, `"id": "CX-01"`) {
		t.Errorf("checks: exit %d, CX-01 not listed:\n%s", code, out)
	}
	if code, out := run("certify", "--reference", "--check", "CX-01", "--seed", "5", "--report-dir", "pass", "-q"); code != 0 {
		t.Fatalf("certify --check CX-01: exit %d, want 0\n%s", code, out)
	}
	var rep reports.Report
	b, err := os.ReadFile(filepath.Join(dir, "pass", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Checks) != 1 || rep.Checks[0].ID != "CX-01" || rep.Checks[0].Status != reports.StatusPass ||
		!strings.Contains(rep.Checks[0].Reproduce, "--check CX-01") || !strings.Contains(rep.Checks[0].Reproduce, "--seed 5") {
		t.Errorf("report.json: %+v", rep.Checks)
	}
	for _, f := range []string{"junit.xml", "summary.md", "report.html"} {
		b, err := os.ReadFile(filepath.Join(dir, "pass", f))
		if err != nil || !bytes.Contains(b, []byte("CX-01")) {
			t.Errorf("%s does not name CX-01 (%v)", f, err)
		}
		if f == "junit.xml" {
			var v any
			if err := xml.Unmarshal(b, &v); err != nil {
				t.Errorf("junit.xml: %v", err)
			}
		}
	}

	code, out := run("certify", "--reference", "--defect", "no-idempotency", "--check", "CX-01", "--report-dir", "fail")
	if code != 1 || !strings.Contains(out, "fail  CX-01") || !strings.Contains(out, "Idempotent-Replayed") {
		t.Errorf("certify with no-idempotency: exit %d, want 1 with CX-01 failing:\n%s", code, out)
	}

	spec := filepath.Join(dir, "waived.yaml")
	if err := os.WriteFile(spec, []byte(`kind: reference
reference: {defects: [no-idempotency]}
gate:
  waivers:
    - check: CX-01
      reason: the replay header ships with the next release (an example waiver)
      expires: 2099-12-31
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := run("target", "validate", spec); code != 0 {
		t.Errorf("a waiver for CX-01: validate exit %d\n%s", code, out)
	}
	if code, out := run("certify", "-f", spec, "--check", "CX-01", "--report-dir", "waived", "-q"); code != 0 {
		t.Errorf("a waived CX-01 failure: exit %d, want 0\n%s", code, out)
	}
}
