package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/reports"
)

// TestCertify_reportEveryOutcome: a run that never reaches its checks still
// writes its report (every file), saying why, so a CI artifact exists when
// it is needed most: an unreachable target and a process that exits are
// exit 3 with the target's last output; Ctrl-C while the target starts is
// exit 4.
func TestCertify_reportEveryOutcome(t *testing.T) {
	t.Parallel()
	free := freeAddrs(t, 2)
	tail := "operations: [{name: pay, path: /v1/payments, body: '{\"amount\": {{.Amount}}}'}]\n" +
		"dependencies: [{name: processor}]\neffects: {ledger: {dependency: processor}}\n"
	cases := []struct {
		name    string
		spec    string
		cancel  time.Duration // 0: not cancelled
		code    int
		verdict reports.Verdict
		want    []string // in the report's aborted, interrupted and target output
	}{
		{name: "unreachable", code: exitInconclusive, verdict: reports.VerdictInconclusive,
			spec: "kind: running\nservice: {url: 'http://" + free[0] + "', startup_timeout: 300ms}\n" +
				"operations: [{name: pay, path: /v1/payments}]\ndependencies: [{name: processor, listen: '" + free[1] + "'}]\n" +
				"effects: {ledger: {dependency: processor}}\n",
			want: []string{"not healthy"}},
		{name: "process exits", code: exitInconclusive, verdict: reports.VerdictInconclusive,
			spec: "kind: process\nprocess: {command: [sh, -c, 'echo starting; echo boom: no config at /etc/pay.toml >&2; exit 3']}\n" + tail,
			want: []string{"exited before becoming healthy", "boom: no config at /etc/pay.toml"}},
		{name: "interrupted while starting", code: exitInterrupted, verdict: reports.VerdictInterrupted, cancel: 500 * time.Millisecond,
			spec: "kind: process\nprocess: {command: [sleep, '30']}\nservice: {startup_timeout: 30s}\n" + tail,
			want: []string{"stopped by a signal before the target was ready"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			if c.cancel > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				time.AfterFunc(c.cancel, cancel)
			}
			dir := t.TempDir()
			code, out, errs := runCLI(ctx, "certify", "-f", writeSpec(t, "target.yaml", c.spec), "--report-dir", dir, "-q")
			if code != c.code {
				t.Fatalf("certify = %d; want %d\nstdout %s\nstderr %s", code, c.code, out, errs)
			}
			rep := loadReport(t, dir)
			said := rep.Aborted + "\n" + rep.Interrupted + "\n" + rep.TargetOutput
			if rep.Verdict != c.verdict {
				t.Errorf("report verdict %q; want %q", rep.Verdict, c.verdict)
			}
			for _, w := range c.want {
				if !strings.Contains(said, w) {
					t.Errorf("report says %q; want it to mention %q", said, w)
				}
			}
			for _, f := range []string{"junit.xml", "summary.md", "report.html", "journal.jsonl"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("missing %s: %v", f, err)
				}
			}
		})
	}
}

// TestCertify_deadDependency: a healthy service whose dependency's real
// upstream is not listening ends in seconds, inconclusive (exit 3), before
// any check, the console and every report naming the address and the dial
// error.
func TestCertify_deadDependency(t *testing.T) {
	t.Parallel()
	service := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	t.Cleanup(service.Close)
	free := freeAddrs(t, 2)
	upstream := free[0]
	spec := "kind: running\nservice: {url: '" + service.URL + "'}\n" +
		"operations: [{name: pay, path: /v1/payments, body: '{\"amount\": {{.Amount}}}'}]\n" +
		"dependencies: [{name: processor, listen: '" + free[1] + "', upstream: 'http://" + upstream + "'}]\n" +
		"effects: {ledger: {dependency: processor}}\n"
	dir := t.TempDir()
	started := time.Now()
	code, out, errs := runCLI(context.Background(), "certify", "-f", writeSpec(t, "target.yaml", spec), "--report-dir", dir, "-q")
	took := time.Since(started)
	if code != exitInconclusive {
		t.Fatalf("certify = %d; want %d\nstdout %s\nstderr %s", code, exitInconclusive, out, errs)
	}
	if took > 10*time.Second {
		t.Errorf("certify took %s; want seconds", took)
	}
	said := "dial tcp " + upstream + ": connect: connection refused"
	if !strings.Contains(errs, "resilcheck: certify: dependency processor is unreachable at its upstream http://"+upstream+": "+said) {
		t.Errorf("stderr %q; want the dependency, its upstream and %q", errs, said)
	}
	if !strings.Contains(strings.Join(strings.Fields(out), " "), said) || !strings.Contains(out, "ABORTED") {
		t.Errorf("console report %q; want ABORTED with %q", out, said)
	}
	for _, f := range []string{"report.json", "junit.xml", "summary.md", "report.html"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || !strings.Contains(string(b), said) {
			t.Errorf("%s does not say %q (%v)", f, said, err)
		}
	}
	t.Logf("exit %d in %s: %s", code, took.Round(time.Millisecond), strings.TrimSpace(errs))
}

// TestCertify_unhealthyOutput: a process target that dies with a long Go
// stack trace is exit 3, and the console and every report show its panic
// line and the trace's last lines, the frames' own indentation kept.
func TestCertify_unhealthyOutput(t *testing.T) {
	t.Parallel()
	script := `echo starting; echo ''panic: boom: ledger unreachable'' >&2; echo >&2; i=1; ` +
		`while [ $i -le 30 ]; do printf ''goroutine %d [select (no cases)]:\nmain.worker()\n\t/src/main.go:%d +0x1d\n\n'' $i $((39+i)) >&2; i=$((i+1)); done; exit 2`
	spec := "kind: process\nprocess: {command: [sh, -c, '" + script + "']}\n" +
		"operations: [{name: pay, path: /v1/payments}]\ndependencies: [{name: processor}]\neffects: {ledger: {dependency: processor}}\n"
	dir := t.TempDir()
	code, out, errs := runCLI(context.Background(), "certify", "-f", writeSpec(t, "target.yaml", spec), "--report-dir", dir, "-q")
	if code != exitInconclusive {
		t.Fatalf("certify = %d; want %d\nstdout %s\nstderr %s", code, exitInconclusive, out, errs)
	}
	want := []string{"panic: boom: ledger unreachable", "goroutine 30 [select (no cases)]:", "main.worker()"}
	if !strings.Contains(out, "target's last output:\n  panic: boom: ledger unreachable\n  …\n") || !strings.Contains(out, "\n  \t/src/main.go:69 +0x1d\n") {
		t.Errorf("console report:\n%s\nwant the panic line first, then the trace's last lines, indented as written", out)
	}
	files := map[string]string{"console": out, "stderr": errs}
	for _, f := range []string{"report.json", "junit.xml", "summary.md", "report.html"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		files[f] = string(b)
	}
	for f, text := range files {
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s does not show %q", f, w)
			}
		}
		if strings.Contains(text, "goroutine 9 ") {
			t.Errorf("%s shows goroutine 9; want only the last lines", f)
		}
	}
}
