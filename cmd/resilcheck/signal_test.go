package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestMain_signals builds the binary and interrupts a certification the way
// a user does: one SIGINT stops it gracefully (exit 4, partial report
// written); a second one ends it at once.
func TestMain_signals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "resilcheck")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, signals := range []int{1, 2} {
		dir := t.TempDir()
		cmd := exec.Command(bin, "certify", "--reference", "--out", dir, "--seed", "3")
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Interrupt once the first check has finished: its progress line is
		// the first thing certify writes to stderr.
		if _, err := bufio.NewReader(stderr).ReadString('\n'); err != nil {
			t.Fatalf("no progress line: %v", err)
		}
		go func() { _, _ = io.Copy(io.Discard, stderr) }()
		for range signals {
			_ = cmd.Process.Signal(syscall.SIGINT)
			time.Sleep(20 * time.Millisecond)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
				t.Errorf("%d SIGINT: exit %v; want %d", signals, err, exitInterrupted)
			}
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatalf("%d SIGINT: still running after 30 s", signals)
		}
		_, err = os.Stat(filepath.Join(dir, "report.json"))
		if signals == 1 && err != nil {
			t.Errorf("one SIGINT: no partial report: %v", err)
		}
	}
}
