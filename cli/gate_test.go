package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/reports"
)

// loadReport reads dir/report.json, failing the test when it is missing.
func loadReport(t *testing.T, dir string) *reports.Report {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatalf("no report written: %v", err)
	}
	defer f.Close()
	rep, err := reports.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestCertify_gate fails the reference on IK-06 (a SHOULD) and checks that
// the gate, the waivers and the baseline decide the exit code, and that
// every report says which gate applied.
func TestCertify_gate(t *testing.T) {
	t.Parallel()
	run := func(dir string, args ...string) (int, string) {
		t.Helper()
		args = append([]string{"certify", "--check", "IK-06", "--seed", "3", "-q", "--report-dir", dir}, args...)
		code, out, errs := runCLI(context.Background(), args...)
		return code, out + errs
	}
	defect := []string{"--reference", "--defect", "replay-mismatch"}
	first := t.TempDir()
	if code, out := run(first, defect...); code != exitFail || !strings.Contains(out, "gate: fails on any failure (default)") {
		t.Fatalf("default gate = %d; want 1 naming the default gate\n%s", code, out)
	}
	waived := writeSpec(t, "target.yaml", "kind: reference\nreference: {defects: [replay-mismatch]}\ngate:\n  fail_on: must\n  waivers:\n"+
		"    - {check: IK-06, reason: replays the first answer until PAY-7 ships, expires: 2099-12-31}\n")
	expired := writeSpec(t, "target.yaml", "kind: reference\nreference: {defects: [replay-mismatch]}\ngate:\n  waivers:\n"+
		"    - {check: IK-06, reason: replays the first answer, expires: 2020-01-31}\n")
	cases := []struct {
		name    string
		args    []string
		want    int
		outcome reports.GateOutcome
		mention string
	}{
		{"fail-on must lets a SHOULD through", append(defect, "--fail-on", "must"), exitPass, reports.GateBelow, "not gating: SHOULD is below the gate"},
		{"fail-on should counts it", append(defect, "--fail-on", "should"), exitFail, reports.GateCounted, "(--fail-on)"},
		{"the baseline had it, new only", append(defect, "--baseline", filepath.Join(first, "report.json"), "--fail-on-new"), exitPass, reports.GateKnown, "0 new, 0 fixed, 1 unchanged"},
		{"the baseline had it, every failure counts", append(defect, "--baseline", filepath.Join(first, "report.json")), exitFail, reports.GateCounted, "1 unchanged"},
		{"a waiver in the spec", []string{"-f", waived}, exitPass, reports.GateWaived, "waived until 2099-12-31: replays the first answer until PAY-7 ships"},
		{"an expired waiver", []string{"-f", expired}, exitFail, reports.GateCounted, "EXPIRED: it no longer waives"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			code, out := run(dir, c.args...)
			if code != c.want || !strings.Contains(out, c.mention) {
				t.Fatalf("certify %q = %d; want %d mentioning %q\n%s", c.args, code, c.want, c.mention, out)
			}
			rep := loadReport(t, dir)
			if len(rep.Checks) != 1 || rep.Checks[0].Gate != c.outcome || rep.Gate == nil {
				t.Errorf("report checks %+v, gate %+v; want IK-06 with gate outcome %q", rep.Checks, rep.Gate, c.outcome)
			}
			md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
			if !strings.Contains(string(md), "**Gate:**") {
				t.Errorf("summary.md does not say which gate applied:\n%s", md)
			}
		})
	}
}

// TestCertify_gateUsage: a bad gate flag, a malformed baseline or a waiver
// for an unknown check is exit 2, before any target starts.
func TestCertify_gateUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.json")
	other := filepath.Join(dir, "other.json")
	_ = os.WriteFile(garbage, []byte("<html>not json"), 0o644)
	_ = os.WriteFile(other, []byte(`{"schema": "someone-else/v3"}`), 0o644)
	unknown := writeSpec(t, "target.yaml", "kind: reference\ngate:\n  waivers: [{check: XX-99, reason: r, expires: 2099-01-01}]\n")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown level", []string{"--reference", "--fail-on", "sometimes"}, "--fail-on: unknown level"},
		{"new only without a baseline", []string{"--reference", "--fail-on-new"}, "--fail-on-new needs --baseline"},
		{"baseline missing", []string{"--reference", "--baseline", filepath.Join(dir, "absent.json")}, "--baseline"},
		{"baseline not JSON", []string{"--reference", "--baseline", garbage}, "is not a resilcheck report"},
		{"baseline of another schema", []string{"--reference", "--baseline", other}, "unsupported report schema"},
		{"waiver for an unknown check", []string{"-f", unknown}, `gate.waivers[0].check: unknown check "XX-99"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			code, out, errs := runCLI(context.Background(), append(append([]string{"certify"}, c.args...), "--report-dir", t.TempDir())...)
			if code != exitUsage || !strings.Contains(out+errs, c.want) {
				t.Errorf("certify %q = %d, output %q; want exit 2 mentioning %q", c.args, code, out+errs, c.want)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("certify %q took %s: a usage error must not start the target", c.args, d)
			}
		})
	}
}
