package targets

import "fmt"

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
// matches whatever Err matches (errors.Is(err, ErrUnhealthy) for a stack
// that did not become healthy).
type LogsError struct {
	Err  error
	Logs []Log
}

// Error is Err's message and the names of the logs kept.
func (e *LogsError) Error() string {
	names := make([]string, len(e.Logs))
	for i, l := range e.Logs {
		names[i] = l.Name
	}
	return fmt.Sprintf("%v (logs of %v kept)", e.Err, names)
}

// Unwrap returns Err.
func (e *LogsError) Unwrap() error { return e.Err }
