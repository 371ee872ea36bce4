package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/certify"
)

// TestMain_signals builds the binary and interrupts a certification the way
// a user does: one SIGINT stops it gracefully, a second one stops it now.
// Either way the run exits 4 and leaves every requested report file, each
// complete, and no temporary file; the second signal is sent at several
// moments so some land while the report is being written.
func TestMain_signals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "resilcheck")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/resilcheck").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, c := range []struct {
		name string
		gaps []time.Duration // before each further SIGINT
	}{
		{"one SIGINT", nil},
		// 1 ms, not 0: a second SIGINT sent before the first is delivered
		// merges with it (standard signals do not queue).
		{"two SIGINTs 1ms apart", []time.Duration{time.Millisecond}},
		{"two SIGINTs 20ms apart", []time.Duration{20 * time.Millisecond}},
		{"two SIGINTs 50ms apart", []time.Duration{50 * time.Millisecond}},
	} {
		dir := t.TempDir()
		cmd := exec.Command(bin, "certify", "--reference", "--report-dir", dir, "--seed", "3")
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// A failure below must not leave the child and its reference stack
		// running: Kill and Wait after the test's own Wait are no-ops.
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		// Interrupt once the first check has finished: its progress line is
		// the first line certify writes to stderr after its phases.
		lines := bufio.NewReader(stderr)
		for {
			line, err := lines.ReadString('\n')
			if err != nil {
				t.Fatalf("%s: no progress line: %v", c.name, err)
			}
			if !strings.Contains(line, certify.PhaseStarting) && !strings.Contains(line, certify.PhaseHealth) {
				break
			}
		}
		go func() { _, _ = io.Copy(io.Discard, lines) }()
		_ = cmd.Process.Signal(syscall.SIGINT)
		for _, gap := range c.gaps {
			time.Sleep(gap)
			_ = cmd.Process.Signal(syscall.SIGINT)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
				t.Errorf("%s: exit %v; want %d", c.name, err, exitInterrupted)
			}
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatalf("%s: still running after 30 s", c.name)
		}
		checkReportDir(t, c.name, dir)
	}
	// Commands that write no report stop on SIGTERM without promising one.
	for _, args := range [][]string{
		{"proxy", "--listen", "127.0.0.1:0"},
		{"reference", "--addr", "127.0.0.1:0"},
	} {
		cmd := exec.Command(bin, args...)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil { // it listens
			t.Fatalf("%s: %v", args[0], err)
		}
		go func() { _, _ = io.Copy(io.Discard, stdout) }()
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		if msg := stderr.String(); !strings.Contains(msg, "resilcheck: stopping") || strings.Contains(msg, "report") {
			t.Errorf("%s on SIGTERM said %q; want a stop notice that promises no report", args[0], msg)
		}
	}
}

// checkReportDir fails t unless dir holds exactly the default formats'
// files and the journal, each parseable, and nothing else.
func checkReportDir(t *testing.T, name, dir string) {
	t.Helper()
	want := map[string]func([]byte) error{
		"report.json": func(b []byte) error { var v map[string]any; return json.Unmarshal(b, &v) },
		"junit.xml":   func(b []byte) error { var v struct{}; return xml.Unmarshal(b, &v) },
		"summary.md": func(b []byte) error {
			if !bytes.Contains(bytes.ToLower(b), []byte("interrupted")) {
				return errors.New("does not say the run was interrupted")
			}
			return nil
		},
		"report.html": func(b []byte) error {
			if !bytes.HasSuffix(bytes.TrimSpace(b), []byte("</html>")) {
				return errors.New("truncated: no </html>")
			}
			return nil
		},
		"journal.jsonl": func(b []byte) error {
			for line := range strings.Lines(string(b)) {
				var v map[string]any
				if err := json.Unmarshal([]byte(line), &v); err != nil {
					return err
				}
			}
			return nil
		},
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, ok := want[e.Name()]; !ok {
			t.Errorf("%s: unexpected file %s (a temporary file left behind?)", name, e.Name())
		}
	}
	for file, valid := range want {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err == nil {
			err = valid(b)
		}
		if err != nil {
			t.Errorf("%s: %s: %v", name, file, err)
		}
	}
}
