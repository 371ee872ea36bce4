package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCertify_missingCommand: a process target whose command does not exist
// is the spec's mistake (exit 2), not an unhealthy target (exit 3).
func TestCertify_missingCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, command := range []string{`["resilcheck-no-such-command"]`, `["./no-such-script.sh"]`} {
		spec := filepath.Join(dir, "target.yaml")
		body := "version: 1\nkind: process\nservice:\n  url: http://127.0.0.1:{{.Port}}\n  startup_timeout: 2s\n" +
			"process:\n  command: " + command + "\n" +
			"operations: [{name: pay, path: /v1/payments, body: '{\"amount\": {{.Amount}}}'}]\n" +
			"dependencies: [{name: processor}]\neffects: {ledger: {dependency: processor}}\n"
		if err := os.WriteFile(spec, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs := runCLI(context.Background(), "certify", "-f", spec, "--report-dir", filepath.Join(dir, "report"))
		if code != exitUsage || !strings.Contains(errs, "no-such") {
			t.Errorf("certify with command %s = %d, stdout %q, stderr %q; want exit 2 naming the command", command, code, out, errs)
		}
	}
}

func TestNarrowedReportDir(t *testing.T) {
	t.Parallel()
	cases := []struct {
		suites, checks []string
		want           string
	}{
		{nil, nil, "resilcheck-report"},
		{nil, []string{"ik-07"}, filepath.Join("resilcheck-report", "check-IK-07")},
		{[]string{"idempotency"}, []string{"IK-07", "IK-10"}, filepath.Join("resilcheck-report", "check-IK-07+IK-10")},
		{[]string{"idempotency", "deadlines"}, nil, filepath.Join("resilcheck-report", "suite-idempotency+deadlines")},
		{nil, []string{"../../etc"}, filepath.Join("resilcheck-report", "check-.._.._ETC")},
	}
	for _, c := range cases {
		if got := narrowedReportDir(defaultReportDir, c.suites, c.checks); got != c.want {
			t.Errorf("narrowedReportDir(%q, %q) = %q; want %q", c.suites, c.checks, got, c.want)
		}
	}
}

// TestCertify_checkKeepsFullReport: replaying one check without
// --report-dir writes beside a full run's report, never over it.
func TestCertify_checkKeepsFullReport(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	full := filepath.Join(defaultReportDir, "report.json")
	if err := os.MkdirAll(defaultReportDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte("the full run"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(context.Background(), "certify", "--reference", "--check", "IK-03", "--seed", "3", "-q", "--format", "json")
	if code != exitPass {
		t.Fatalf("certify --check IK-03 = %d\nstdout %s\nstderr %s", code, out, errs)
	}
	if b, _ := os.ReadFile(full); string(b) != "the full run" {
		t.Errorf("the full run's report.json was overwritten: %.80q", b)
	}
	if _, err := os.Stat(filepath.Join(defaultReportDir, "check-IK-03", "report.json")); err != nil || !strings.Contains(errs, "check-IK-03") {
		t.Errorf("the narrowed run's report: %v; stderr %q", err, errs)
	}
}

func TestCompletion_dynamic(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		args     []string
		want     []string
		dontWant []string
	}{
		{"defects", []string{"certify", "--reference", "--defect", ""}, []string{"racy-idempotency\t", "no-jitter\t"}, nil},
		{"reference defects", []string{"reference", "--defect", "racy"}, []string{"racy-idempotency"}, nil},
		{"suites", []string{"certify", "--suite", ""}, []string{"idempotency", "deadlines", "rate-limit-headers"}, nil},
		{"checks", []string{"certify", "--check", "ik-0"}, []string{"IK-07\t"}, []string{"RB-01"}},
		{"checks of a suite", []string{"certify", "--suite", "deadlines", "--check", ""}, []string{"DL-06\t"}, []string{"IK-07"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			code, out, errs := runCLI(context.Background(), append([]string{"__complete"}, c.args...)...)
			for _, w := range c.want {
				if code != exitPass || !strings.Contains(out, w) {
					t.Errorf("completing %q = %d, %q (stderr %q); want %q", c.args, code, out, errs, w)
				}
			}
			for _, w := range c.dontWant {
				if strings.Contains(out, w) {
					t.Errorf("completing %q offered %q: %q", c.args, w, out)
				}
			}
		})
	}
}

// TestVerbose_oneMeaning: -v is --verbose on every command, never the
// version, and commands that have no verbose output accept it too.
func TestVerbose_oneMeaning(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-v", "checks", "--format", "json"},
		{"checks", "-v", "--format", "json"},
		{"target", "schema", "--verbose"},
	} {
		code, out, errs := runCLI(context.Background(), args...)
		if code != exitPass || !strings.HasPrefix(out, "{") {
			t.Errorf("%q = %d, stdout %.80q, stderr %q; want the command's JSON", args, code, out, errs)
		}
	}
	root := newRootCmd()
	root.InitDefaultVersionFlag()
	if f := root.Flags().Lookup("version"); f == nil || f.Shorthand != "" {
		t.Errorf("--version has shorthand %q; want none (-v is --verbose)", f.Shorthand)
	}
	for _, c := range allCommands(root) {
		if f := c.LocalNonPersistentFlags().ShorthandLookup("v"); f != nil {
			t.Errorf("%s defines its own -v (--%s)", c.CommandPath(), f.Name)
		}
	}
}

func TestStopNotice(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args   []string
		report bool
	}{
		{[]string{"certify", "--reference", "--defect", "no-jitter"}, true},
		{[]string{"proxy", "--listen", "127.0.0.1:0"}, false},
		{[]string{"reference", "--addr", "127.0.0.1:0"}, false},
		{[]string{"reference", "service", "--store", "sqlite:x.db"}, false},
		{[]string{"bogus"}, false},
	}
	for _, c := range cases {
		got := stopNotice(c.args)
		if strings.Contains(got, "report") != c.report || !strings.HasPrefix(got, "resilcheck: stopping") {
			t.Errorf("stopNotice(%q) = %q; want a notice that mentions a report: %v", c.args, got, c.report)
		}
	}
}

// TestMan writes a page per visible command, each naming its flags.
func TestMan(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000") // 2023-11-14
	if code, out, errs := runCLI(context.Background(), "man", dir); code != exitPass {
		t.Fatalf("man = %d\nstdout %s\nstderr %s", code, out, errs)
	}
	b, err := os.ReadFile(filepath.Join(dir, "resilcheck-certify.1"))
	if err != nil || !strings.Contains(string(b), `\fB--report-dir\fP`) || !strings.Contains(string(b), `.TH "RESILCHECK" "1" "Nov 2023"`) {
		t.Fatalf("resilcheck-certify.1: %v\n%.300s", err, b)
	}
	for _, c := range allCommands(newRootCmd()) {
		if c.Hidden || !c.IsAvailableCommand() && c.HasParent() {
			continue
		}
		name := strings.ReplaceAll(c.CommandPath(), " ", "-") + ".1"
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("no man page for %s: %v", c.CommandPath(), err)
		}
	}
}
