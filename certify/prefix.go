package certify

import (
	"bytes"
	"io"
	"sync"
)

// linePrefixer writes each line to w behind a prefix, so the output of
// several copies of a target sharing one writer says which copy spoke.
// A line is written whole once its newline arrives; safe for concurrent use.
type linePrefixer struct {
	mu     sync.Mutex
	w      io.Writer
	prefix []byte
	buf    []byte
}

func newLinePrefixer(w io.Writer, prefix string) *linePrefixer {
	return &linePrefixer{w: w, prefix: []byte(prefix)}
}

// maxPending bounds a line kept waiting for its newline: a process that
// never ends its line does not grow the buffer without end.
const maxPending = 64 << 10

func (p *linePrefixer) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			if len(p.buf) < maxPending {
				return len(b), nil
			}
			i = len(p.buf) - 1
		}
		line := append(append([]byte(nil), p.prefix...), p.buf[:i+1]...)
		p.buf = p.buf[i+1:]
		if _, err := p.w.Write(line); err != nil {
			return len(b), err
		}
	}
}
