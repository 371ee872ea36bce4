//go:build unix

package clients

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCommand_Do_killsTree: when the harness cuts a call, the client's
// children go with it: a shell's background child is killed with the
// shell, not left running (without the process group it outlived the call).
func TestCommand_Do_killsTree(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	c := Command{Argv: []string{"sh", "-c", "sleep 30 & echo $! > " + pidFile + "; wait"}}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := c.Do(ctx, Call{}); err == nil {
		t.Fatal("a cut call reported success")
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second) // one-sided: the kill is asynchronous
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the client's child %d outlived the cut call", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
