package compose

import "github.com/resilcheck/resilcheck/internal/launch"

// The helper's protocol: resilcheck starts
//
//	resilcheck-compose serve --project NAME --service NAME --file FILE...
//
// with the compose variables in its environment. The helper brings the
// project up and writes one Event line (JSON) to stdout: "up", or "error"
// with the containers' logs, after which it has torn the project down and
// exits. After "up" it reads Request lines from stdin and answers each with
// one Event; at "down", or when stdin closes (resilcheck died), it tears the
// project down with its volumes, answers "down" and exits. It ignores
// SIGINT, so a Ctrl-C meant for resilcheck cannot pull the stack away before
// resilcheck has read its logs; SIGTERM tears down as stdin's end does.

// The operations a Request names.
const (
	OpLogs = "logs" // every container's log so far
	OpDown = "down" // tear down, volumes too, then exit
)

// The events the helper writes.
const (
	EventUp    = "up"    // the project is up (its containers started)
	EventLogs  = "logs"  // the answer to OpLogs
	EventDown  = "down"  // the project is gone; the helper exits
	EventError = "error" // something failed; after a failed up, the project is gone and the helper exits
)

// Request is one line resilcheck writes to the helper's stdin.
type Request struct {
	Op string `json:"op"`
}

// Event is one line the helper writes to stdout.
type Event struct {
	Event    string       `json:"event"`
	Services []string     `json:"services,omitempty"` // up: the project's services
	Logs     []launch.Log `json:"logs,omitempty"`     // logs, and error after a failed up
	Error    string       `json:"error,omitempty"`    // error: what failed
}
