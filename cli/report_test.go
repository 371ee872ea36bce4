package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/reports"
)

// writeReportFile saves a small failing report and returns its path.
func writeReportFile(t *testing.T) string {
	t.Helper()
	rep := &reports.Report{
		Seed: 7, Reproduce: "resilcheck certify --reference --seed 7",
		Target:  reports.Target{Name: "reference", Kind: "reference"},
		Started: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),
		Checks: []reports.Check{
			{ID: "IK-02", Suite: "idempotency", Title: "first request processed once", Status: reports.StatusPass},
			{ID: "IK-10", Suite: "idempotency", Title: "retry after lost response", Status: reports.StatusFail,
				Expected: "1 effect", Observed: "2 effects", Reproduce: "resilcheck certify --reference --seed 7 --case lost",
				Evidence: []reports.Exchange{{ID: 1, Side: "dependency", Method: "POST", Path: "/charges", Status: 200}}},
		},
	}
	rep.Finalize()
	path := filepath.Join(t.TempDir(), "report.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := reports.WriteJSON(f, rep); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRun_ReportRender(t *testing.T) {
	t.Parallel()
	good := writeReportFile(t)
	junk := filepath.Join(t.TempDir(), "junk.json")
	if err := os.WriteFile(junk, []byte(`{"schema":"someone-else/v3"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		args     []string
		code     int
		stdout   string // substring of stdout
		stderr   string // substring of stderr
		outFiles []string
	}{
		{name: "console by default", args: []string{"report", "render", good}, code: exitPass, stdout: "verdict FAIL: 1 pass, 1 fail"},
		{name: "markdown to stdout", args: []string{"report", "render", good, "--format", "md"}, code: exitPass, stdout: "## ❌ resilcheck: fail"},
		{name: "junit to stdout", args: []string{"report", "render", good, "--format=junit"}, code: exitPass, stdout: `<testcase name="IK-10 retry after lost response"`},
		{name: "all formats to a directory", args: []string{"report", "render", good, "--format", "console,json,junit,md,html", "--report-dir", "OUT"},
			code: exitPass, stdout: "IK-10", stderr: "wrote ", outFiles: []string{"junit.xml", "report.html", "report.json", "summary.md"}},
		{name: "deprecated --out still works", args: []string{"report", "render", good, "--format", "json,md", "--out", "OUT"},
			code: exitPass, stderr: "--out has been deprecated, use --report-dir", outFiles: []string{"report.json", "summary.md"}},
		{name: "two formats need --report-dir", args: []string{"report", "render", good, "--format", "md,html"}, code: exitUsage, stderr: "--report-dir DIR is needed"},
		{name: "unknown format", args: []string{"report", "render", good, "--format", "pdf"}, code: exitUsage, stderr: `unknown format "pdf"`},
		{name: "missing file", args: []string{"report", "render", filepath.Join(t.TempDir(), "nope.json")}, code: exitUsage, stderr: "no such file"},
		{name: "foreign schema", args: []string{"report", "render", junk}, code: exitUsage, stderr: `unsupported report schema "someone-else/v3"`},
		{name: "no report argument", args: []string{"report", "render"}, code: exitUsage},
		{name: "bare report", args: []string{"report"}, code: exitUsage, stderr: "missing subcommand"},
		{name: "unknown subcommand", args: []string{"report", "bogus"}, code: exitUsage, stderr: "unknown command"},
		{name: "unknown flag", args: []string{"report", "render", good, "--nope"}, code: exitUsage},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "rendered")
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = strings.ReplaceAll(a, "OUT", out)
			}
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), args, &stdout, &stderr)
			if code != c.code || !strings.Contains(stdout.String(), c.stdout) || !strings.Contains(stderr.String(), c.stderr) {
				t.Fatalf("run(%q) = %d\nstdout: %s\nstderr: %s\nwant %d, stdout containing %q, stderr containing %q",
					args, code, stdout.String(), stderr.String(), c.code, c.stdout, c.stderr)
			}
			for _, name := range c.outFiles {
				if st, err := os.Stat(filepath.Join(out, name)); err != nil || st.Size() == 0 {
					t.Errorf("%s not written: %v", name, err)
				}
			}
		})
	}
}

func TestRun_ReportRenderStdin(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(writeReportFile(t))
	if err != nil {
		t.Fatal(err)
	}
	root := newRootCmd()
	var stdout, stderr bytes.Buffer
	root.SetArgs([]string{"report", "render", "-", "--format", "json"})
	root.SetIn(bytes.NewReader(data))
	root.SetOut(&stdout)
	root.SetErr(&stderr)
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("render from stdin: %v (stderr %s)", err, stderr.String())
	}
	rep, err := reports.Read(&stdout)
	if err != nil || rep.Verdict != reports.VerdictFail || len(rep.Checks) != 2 {
		t.Fatalf("re-rendered JSON = %+v, %v; want the failing report back", rep, err)
	}
}
