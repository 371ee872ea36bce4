package launch

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// The messages keep the "targets:" prefix they had before the runtime left
// package targets: they are what users see, and what scripts may match.

var (
	_ error = (*UnhealthyError)(nil)
	_ error = (*ExitedError)(nil)
)

// ErrUnhealthy is matched (errors.Is) by every error saying the target could
// not be reached or did not become healthy: certification is inconclusive (exit 3).
var ErrUnhealthy = errors.New("targets: target unhealthy")

// UnhealthyError says what was tried while waiting for a target's health.
type UnhealthyError struct {
	URL        string        // the health URL
	Attempts   int           // GETs made
	Elapsed    time.Duration // time spent waiting
	LastStatus int           // the last HTTP status any attempt saw; 0 if none
	LastErr    error         // the last attempt's transport error; nil if it got a status
	Output     string        // the last lines a process started by resilcheck wrote; empty otherwise
}

// Error says what was tried: the URL, the attempts, the time and the last outcome.
func (e *UnhealthyError) Error() string {
	last := "no attempt finished"
	switch {
	case e.LastErr != nil && e.LastStatus != 0:
		last = fmt.Sprintf("last status: %d, want 2xx; then: %v", e.LastStatus, e.LastErr)
	case e.LastErr != nil:
		last = "last error: " + e.LastErr.Error()
	case e.LastStatus != 0:
		last = fmt.Sprintf("last status: %d, want 2xx", e.LastStatus)
	}
	msg := fmt.Sprintf("targets: GET %s not healthy after %d %s in %s; %s",
		e.URL, e.Attempts, plural(e.Attempts, "attempt", "attempts"), e.Elapsed.Round(time.Millisecond), last)
	if e.Output != "" {
		msg += "; last output:\n" + e.Output
	}
	return msg
}

// Is makes errors.Is(err, ErrUnhealthy) true.
func (e *UnhealthyError) Is(target error) bool { return target == ErrUnhealthy }

// Unwrap returns the last transport error.
func (e *UnhealthyError) Unwrap() error { return e.LastErr }

// ExitedError says a kind-process target exited before it became healthy.
type ExitedError struct {
	Command []string // the rendered argv
	Err     error    // from exec.Cmd.Wait, e.g. "exit status 1"
	Output  string   // the last lines the process wrote to stdout and stderr
}

// Error gives the command, its exit status and its last output.
func (e *ExitedError) Error() string {
	msg := fmt.Sprintf("targets: process %s exited before becoming healthy: %v", strings.Join(e.Command, " "), e.Err)
	if e.Output == "" {
		return msg + " (no output)"
	}
	return msg + "; last output:\n" + e.Output
}

// Is makes errors.Is(err, ErrUnhealthy) true.
func (e *ExitedError) Is(target error) bool { return target == ErrUnhealthy }

// Unwrap returns the wait error.
func (e *ExitedError) Unwrap() error { return e.Err }

// TargetOutput returns the last lines the process wrote, "" when none.
func (e *UnhealthyError) TargetOutput() string { return e.Output }

// TargetOutput returns the last lines the process wrote.
func (e *ExitedError) TargetOutput() string { return e.Output }

// LastOutput returns what the target last wrote (a process's output, a
// stack's logs) as carried by err or any error it wraps that has a
// TargetOutput() string method; "" when none does.
func LastOutput(err error) string {
	var o interface{ TargetOutput() string }
	if errors.As(err, &o) {
		return o.TargetOutput()
	}
	return ""
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
