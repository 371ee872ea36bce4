//go:build unix

package check

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestWatchStalls_stopped: the whole process stopped for about 150 ms (as
// CPU throttling or a paused VM stops it), at several points of the
// watch's 10 ms cycle, is reported as a stall of at least the stop less
// one cycle.
// A child process sends the SIGCONT; it must not run in parallel.
func TestWatchStalls_stopped(t *testing.T) {
	const pause = 150 * time.Millisecond
	for _, phase := range []time.Duration{0, 3 * time.Millisecond, 6 * time.Millisecond, 9 * time.Millisecond} {
		stop := watchStalls()
		time.Sleep(30*time.Millisecond + phase)
		cont := exec.Command("sh", "-c", fmt.Sprintf("sleep %.3f; kill -CONT %d", pause.Seconds(), os.Getpid()))
		if err := cont.Start(); err != nil {
			stop()
			t.Fatal(err)
		}
		// The child's sleep may begin well before the stop on a busy
		// runner, so the stop is timed here: SIGSTOP to self takes effect
		// before kill returns, which it does once continued.
		before := time.Now()
		if err := syscall.Kill(os.Getpid(), syscall.SIGSTOP); err != nil {
			stop()
			t.Fatal(err)
		}
		stopped := time.Since(before)
		_ = cont.Wait()
		time.Sleep(5 * time.Millisecond) // the watch wakes after the stop
		if got := stop(); got.worst < stopped-stallEvery-5*time.Millisecond {
			t.Errorf("phase %s: worst lateness %s after the process was stopped %s", phase, got.worst, stopped)
		}
	}
}
