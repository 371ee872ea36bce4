package launch

import (
	"fmt"
	"io"
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
		o.tail = append(o.tail[:0], o.tail[len(o.tail)-tailBytes:]...)
	}
	return len(p), nil
}

// Tail returns the last lines written, indented for use inside an error message.
func (o *outputLog) Tail() string {
	o.mu.Lock()
	tail := string(o.tail[max(0, len(o.tail)-tailBytes):])
	o.mu.Unlock()
	lines := strings.Split(strings.TrimRight(tail, "\n"), "\n")
	if len(lines) > tailMaxLines {
		lines = lines[len(lines)-tailMaxLines:]
	}
	if len(lines) == 1 && lines[0] == "" {
		return ""
	}
	return "\t" + strings.Join(lines, "\n\t")
}
