//go:build unix

package launch

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRunInGroup: a script that starts a child and hangs is killed at its
// context's end, and its child with it.
func TestRunInGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", `sleep 60 & echo $! > "$0"; sleep 60`, pidFile)
	cmd.WaitDelay = 5 * time.Second
	if err := RunInGroup(cmd); err == nil {
		t.Fatal("a script killed at its timeout reported success")
	}
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	// Killed means gone, or a zombie awaiting a reaper (PID 1 in a
	// container may never reap it); the kernel tears a killed process down
	// a moment after kill(2) returns, so the state is polled.
	for deadline := time.Now().Add(5 * time.Second); ; {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the script's child %d outlived it: %s", pid, stat)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
