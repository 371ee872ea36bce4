package main

import (
	"os"
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
// partial report written) closes within hardStopWait.
func stopNow(done <-chan struct{}) {
	select {
	case <-done:
		return
	case <-time.After(hardStopWait):
	}
	reportWrite.Lock()
	os.Exit(exitInterrupted)
}
