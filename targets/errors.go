package targets

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Problem is one thing wrong with a spec, at a 1-based line and column (0
// when unknown, e.g. for a Target built in Go).
type Problem struct {
	Line, Column int
	Path         string // the field, e.g. "operations[0].path"; empty for the whole document
	Msg          string // what is wrong and what was expected
}

// String formats the problem as "LINE:COL: PATH: MSG", leaving out what is unknown.
func (p Problem) String() string {
	var b strings.Builder
	switch {
	case p.Line > 0 && p.Column > 0:
		fmt.Fprintf(&b, "%d:%d: ", p.Line, p.Column)
	case p.Line > 0:
		fmt.Fprintf(&b, "%d: ", p.Line) // the YAML parser reports no column
	}
	if p.Path != "" {
		b.WriteString(p.Path + ": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// SpecError reports an invalid or unreadable spec with every problem found.
// Callers branch on it with errors.As: it is the user's to fix (exit 2).
type SpecError struct {
	File     string // as given to Load or Parse; may be empty
	Problems []Problem
}

// maxProblems bounds a report: past it, more lines help nobody.
const maxProblems = 50

// capProblems keeps the first maxProblems and says how many were left out.
func capProblems(probs []Problem) []Problem {
	if len(probs) <= maxProblems {
		return probs
	}
	n := len(probs) - maxProblems
	return append(probs[:maxProblems:maxProblems], Problem{Msg: fmt.Sprintf("and %d more %s", n, plural(n, "problem", "problems"))})
}

// Lines returns one "FILE:LINE:COL: PATH: MSG" line per problem.
func (e *SpecError) Lines() []string {
	out := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		s := p.String()
		if e.File != "" {
			sep := ": "
			if p.Line > 0 {
				sep = ":"
			}
			s = e.File + sep + s
		}
		out[i] = s
	}
	return out
}

// Error lists the problems, one per line after the first when there are several.
func (e *SpecError) Error() string {
	lines := e.Lines()
	if len(lines) == 1 {
		return "targets: " + lines[0]
	}
	name := e.File
	if name == "" {
		name = "spec"
	}
	return fmt.Sprintf("targets: %s: %d problems:\n\t%s", name, len(lines), strings.Join(lines, "\n\t"))
}

var (
	_ error = (*SpecError)(nil)
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

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

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
