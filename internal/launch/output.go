package launch

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
)

// Output bounds: what is forwarded to the log, and what is kept for errors.
const (
	maxLogBytes  = 16 << 20
	tailBytes    = 8 << 10
	tailMaxLines = 20
)

// outputLog receives a child's stdout and stderr: it forwards them to a log
// writer up to maxLogBytes and keeps the last lines for error messages. Safe
// for concurrent use; writes never fail, so the child is never disturbed.
type outputLog struct {
	mu      sync.Mutex
	w       io.Writer // nil = discard
	written int64
	tail    []byte
	cause   string // the last cause line (see isCause) among the bytes dropped from tail
}

func (o *outputLog) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.w != nil && o.written < maxLogBytes {
		chunk := p[:min(int64(len(p)), maxLogBytes-o.written)]
		_, _ = o.w.Write(chunk)
		o.written += int64(len(chunk))
		if o.written == maxLogBytes {
			fmt.Fprintf(o.w, "\n[resilcheck: target output truncated after %d bytes]\n", maxLogBytes)
		}
	}
	o.tail = append(o.tail, p...)
	if len(o.tail) > 2*tailBytes {
		if c := lastCause(string(o.tail[:len(o.tail)-tailBytes])); c != "" {
			o.cause = c
		}
		o.tail = append(o.tail[:0], o.tail[len(o.tail)-tailBytes:]...)
	}
	return len(p), nil
}

// Tail returns the last lines written, indented for use inside an error
// message. When a Go program's dying line ("panic: ...", "fatal error: ...")
// is not among them, pushed out by a long stack trace, it comes first,
// then a line "…": the trace's frames alone do not say what went wrong.
func (o *outputLog) Tail() string {
	o.mu.Lock()
	all := strings.TrimRight(string(o.tail), "\n")
	cause := o.cause
	o.mu.Unlock()
	lines := strings.Split(all[max(0, len(all)-tailBytes):], "\n")
	if len(lines) > tailMaxLines {
		lines = lines[len(lines)-tailMaxLines:]
	}
	if len(lines) == 1 && lines[0] == "" {
		return ""
	}
	if !slices.ContainsFunc(lines, isCause) {
		if c := lastCause(all[:len(all)-len(strings.Join(lines, "\n"))]); c != "" {
			cause = c
		}
		if cause != "" {
			lines = append([]string{cause, "…"}, lines...)
		}
	}
	return "\t" + strings.Join(lines, "\n\t")
}

// maxCauseBytes bounds the dying line Tail keeps.
const maxCauseBytes = 512

// isCause reports whether line is the one a Go program dies with.
func isCause(line string) bool {
	return strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ")
}

// lastCause returns the last line of text isCause accepts, cut to
// maxCauseBytes, or "".
func lastCause(text string) string {
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if isCause(lines[i]) {
			return lines[i][:min(len(lines[i]), maxCauseBytes)]
		}
	}
	return ""
}
