package compose

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"github.com/resilcheck/resilcheck/internal/launch"
)

// HelperName is the helper program's name; HelperEnv, when set, is its path.
const (
	HelperName = "resilcheck-compose"
	HelperEnv  = "RESILCHECK_COMPOSE"
)

// installHint says how to get the helper, for the error that misses it.
const installHint = "build it in a clone of resilcheck with `go -C compose/engine build -o $(go env GOPATH)/bin/resilcheck-compose ./cmd/resilcheck-compose`"

// findHelper returns the helper's path: $RESILCHECK_COMPOSE, else the
// program next to the running resilcheck, else the one on PATH.
func findHelper() (string, error) {
	if p := os.Getenv(HelperEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("compose: %s=%s: %w", HelperEnv, p, err)
		}
		return p, nil
	}
	if exe, err := os.Executable(); err == nil {
		name := HelperName
		if runtime.GOOS == "windows" {
			name += ".exe" // as the release archives ship it
		}
		p := filepath.Join(filepath.Dir(exe), name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	p, err := exec.LookPath(HelperName)
	if err != nil {
		return "", fmt.Errorf("compose: kind compose needs the %s helper, not found next to resilcheck, on PATH or in $%s; %s", HelperName, HelperEnv, installHint)
	}
	return p, nil
}

// helper is a running resilcheck-compose: one request at a time over its
// stdin, answered by one event on its stdout.
type helper struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	events  chan Event // closed when its stdout ends
	stderr  *tail
	exited  chan struct{}
	waitErr error // set before exited closes

	mu sync.Mutex // serialises requests
}

// startHelper starts path with args in dir, with env added to resilcheck's
// environment; its stderr goes to log (nil = discarded) and is kept in part
// for errors.
func startHelper(path string, args []string, dir string, env []string, log io.Writer) (*helper, error) {
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	// Buffered beyond the few events a helper ever sends, so the reader
	// never blocks on a resilcheck that stopped listening (a timed-out
	// teardown) and always gets to reap the helper.
	h := &helper{cmd: cmd, events: make(chan Event, 64), stderr: &tail{w: log}, exited: make(chan struct{})}
	cmd.Stderr = h.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("compose: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("compose: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("compose: starting %s: %w", path, err)
	}
	h.stdin = stdin
	go h.read(stdout)
	return h, nil
}

// read turns stdout's lines into events until it ends, then reaps the helper.
func (h *helper) read(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 64<<20) // a logs event carries every container's log
	for sc.Scan() {
		var ev Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			ev = Event{Event: EventError, Error: fmt.Sprintf("unreadable helper output %.200q: %v", sc.Text(), err)}
		}
		h.events <- ev
	}
	close(h.events)
	h.waitErr = h.cmd.Wait()
	close(h.exited)
}

// next waits for the helper's next event.
func (h *helper) next(ctx context.Context) (Event, error) {
	select {
	case ev, ok := <-h.events:
		if !ok {
			<-h.exited
			return Event{}, fmt.Errorf("compose: %s exited (%v) without answering; its last output:\n%s", HelperName, h.waitErr, h.stderr.String())
		}
		return ev, nil
	case <-ctx.Done():
		return Event{}, fmt.Errorf("compose: waiting for %s: %w", HelperName, ctx.Err())
	}
}

// request sends op and returns the helper's answer.
func (h *helper) request(ctx context.Context, op string) (Event, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	b, _ := json.Marshal(Request{Op: op})
	if _, err := h.stdin.Write(append(b, '\n')); err != nil {
		return Event{}, fmt.Errorf("compose: asking %s for %s: %w", HelperName, op, err)
	}
	ev, err := h.next(ctx)
	if err == nil && ev.Event == EventError {
		err = fmt.Errorf("compose: %s: %s", op, ev.Error)
	}
	return ev, err
}

// down tears the project down and waits for the helper to exit. When ctx
// ends first, the helper finishes the teardown on its own: it outlives
// resilcheck for that.
func (h *helper) down(ctx context.Context) error {
	_, err := h.request(ctx, OpDown)
	_ = h.stdin.Close()
	if err != nil {
		if errors.Is(err, ctx.Err()) {
			return fmt.Errorf("%w (the helper, pid %d, goes on tearing the project down)", err, h.cmd.Process.Pid)
		}
		return err
	}
	select {
	case <-h.exited:
	case <-ctx.Done():
	}
	return nil
}

// interrupt stops a helper still bringing its project up (SIGTERM makes it
// give up, take the logs and tear down) and returns cause with the logs.
func (h *helper) interrupt(ctx context.Context, cause error) error {
	_ = h.cmd.Process.Signal(syscall.SIGTERM)
	c, cancel := context.WithTimeout(context.WithoutCancel(ctx), teardownTime)
	defer cancel()
	ev, err := h.next(c)
	_ = h.stdin.Close()
	if err != nil || ev.Event != EventError {
		return fmt.Errorf("%w: %w", launch.ErrUnhealthy, cause)
	}
	return &launch.LogsError{Err: cause, Logs: ev.Logs}
}

// tail passes writes on to w (if any) and keeps the last bytes for errors.
// Safe for concurrent use; writes never fail.
type tail struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

const tailBytes = 8 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.w != nil {
		_, _ = t.w.Write(p)
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*tailBytes {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailBytes:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(t.buf[max(0, len(t.buf)-tailBytes):])
	return "\t" + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n\t")
}
