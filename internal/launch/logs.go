package launch

import (
	"strings"
)

// MaxLogBytes bounds one part's log: its last bytes are kept, since the end
// of a log tells why a run went wrong.
const MaxLogBytes = 256 << 10

// Log is the output of one part of a target, such as one container of a
// compose stack, attached to a report when a run fails.
type Log struct {
	Name   string `json:"name"`   // the part, e.g. gateway-1 (compose service and replica)
	Output string `json:"output"` // its stdout and stderr interleaved, at most MaxLogBytes, the last ones
}

// LogsError is a launch failure that comes with the target's logs, so a
// target that did not come up can be diagnosed from its own output. It
// matches ErrUnhealthy, and whatever Err matches.
type LogsError struct {
	Err  error
	Logs []Log
}

// logTailLines is how many lines of each log an error message shows.
const logTailLines = 15

// Error is Err's message, then the last lines of each log.
func (e *LogsError) Error() string {
	out := e.TargetOutput()
	if out == "" {
		return e.Err.Error()
	}
	return e.Err.Error() + "; last output:\n" + out
}

// TargetOutput returns the last lines of each log, under its name.
func (e *LogsError) TargetOutput() string {
	var b strings.Builder
	for _, l := range e.Logs {
		lines := strings.Split(strings.TrimRight(l.Output, "\n"), "\n")
		lines = lines[max(0, len(lines)-logTailLines):]
		b.WriteString("\t== " + l.Name + " ==\n")
		for _, line := range lines {
			b.WriteString("\t" + line + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// Is makes errors.Is(err, ErrUnhealthy) true.
func (e *LogsError) Is(target error) bool { return target == ErrUnhealthy }

// Unwrap returns Err.
func (e *LogsError) Unwrap() error { return e.Err }
