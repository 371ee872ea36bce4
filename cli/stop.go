package cli

import (
	"os"
	"strings"
	"sync"
	"time"
)

// hardStopWait bounds how long a second signal lets the run finish: an
// interrupted run normally tears down and writes its partial report in well
// under a second, so this only ends a teardown that hangs.
var hardStopWait = 5 * time.Second // a variable for the test of its expiry

// reportWrite is held while report files are written, so a second signal
// never exits in the middle of one: the hard stop takes it before exiting,
// which lets a write under way finish and keeps any later one from starting.
var reportWrite sync.Mutex

// stopNow ends the process with exit 4 unless done (the run returning, its
// partial report written) closes within hardStopWait; a report file being
// written is finished first. Another signal on again exits at once, even in
// the middle of a write (its temporary file is left behind): the user's
// third Ctrl-C outranks a write that hangs.
func stopNow(done <-chan struct{}, again <-chan os.Signal) {
	select {
	case <-done:
		return
	case <-again:
		os.Exit(exitInterrupted)
	case <-time.After(hardStopWait):
	}
	written := make(chan struct{})
	go func() {
		reportWrite.Lock()
		close(written)
	}()
	select {
	case <-written:
	case <-again:
	}
	os.Exit(exitInterrupted)
}

// onStop is the annotation of a command that does something on a graceful
// stop worth announcing, such as writing a partial report; commands without
// it just stop, and the notice must not promise more.
const onStop = "resilcheck/on-stop"

// stopNotice is what the first signal prints while the command args name runs.
func stopNotice(args []string) string {
	notice := []string{"resilcheck: stopping"}
	if c, _, err := newRootCmd().Find(args); err == nil && c.Annotations[onStop] != "" {
		notice = append(notice, c.Annotations[onStop])
	}
	return strings.Join(notice, "; ") + " (Ctrl-C again to stop now)"
}
