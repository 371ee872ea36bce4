package cli

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/reports"
)

// TestStopNow_waitsForWrite: when a second signal's wait runs out while a
// report file is being written, the process exits 4 only after that file is
// complete, and leaves no temporary file. The test re-runs its own binary
// as the process that stops.
func TestStopNow_waitsForWrite(t *testing.T) {
	if dir := os.Getenv("RESILCHECK_STOPNOW_DIR"); dir != "" {
		hardStopWait = 50 * time.Millisecond
		reportWrite.Lock()
		go func() {
			// Still writing when the wait ends.
			_ = reports.WriteFileAtomic(filepath.Join(dir, "report.json"), func(w io.Writer) error {
				time.Sleep(300 * time.Millisecond)
				_, err := io.WriteString(w, "{}")
				return err
			})
			reportWrite.Unlock()
		}()
		stopNow(make(chan struct{}), nil)
		t.Fatal("stopNow returned without the run finishing")
	}
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestStopNow_waitsForWrite$")
	cmd.Env = append(os.Environ(), "RESILCHECK_STOPNOW_DIR="+dir)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
		t.Fatalf("exit %v; want %d\n%s", err, exitInterrupted, out)
	}
	entries, _ := os.ReadDir(dir)
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil || string(b) != "{}" || len(entries) != 1 {
		t.Errorf("report.json = %q, %v; %d files in the directory; want the whole file and nothing else", b, err, len(entries))
	}
}

// TestStopNow_thirdSignal: a report write that hangs does not hold the
// process once a third signal comes: it exits 4 at once.
func TestStopNow_thirdSignal(t *testing.T) {
	if os.Getenv("RESILCHECK_STOPNOW_HANG") != "" {
		hardStopWait = 10 * time.Millisecond
		reportWrite.Lock() // a write that never finishes
		again := make(chan os.Signal, 1)
		go func() {
			time.Sleep(100 * time.Millisecond) // past the wait, inside the hung write
			again <- os.Interrupt
		}()
		stopNow(make(chan struct{}), again)
		t.Fatal("stopNow returned without the run finishing")
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestStopNow_thirdSignal$")
	cmd.Env = append(os.Environ(), "RESILCHECK_STOPNOW_HANG=1")
	done := make(chan error, 1)
	go func() { _, err := cmd.CombinedOutput(); done <- err }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
			t.Fatalf("exit %v; want %d", err, exitInterrupted)
		}
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("a third signal did not end a hung report write within 60 s")
	}
}
