package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/resilcheck/resilcheck/internal/compose"
)

// teardownTime bounds Down; the default stop grace of compose is 10 s per
// container, and they stop in parallel.
const teardownTime = 2 * time.Minute

// Serve runs the helper's side of package compose's protocol for one
// project: Up, then answer requests from in on out until "down" or the end
// of in, then Down. SIGTERM ends it as the end of in does; SIGINT and
// SIGPIPE are ignored, so the teardown happens even when resilcheck was
// interrupted or is gone; a project whose helper was killed outright is
// reaped by the next helper to start (see LeaseDir). It returns an error only when the project did not
// come up or could not be torn down.
func Serve(project, service string, files []string, in io.Reader, out io.Writer) error {
	signal.Ignore(syscall.SIGINT, syscall.SIGPIPE)
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	defer signal.Stop(term)
	enc := json.NewEncoder(out)
	send := func(ev compose.Event) { _ = enc.Encode(ev) }

	// Projects of helpers that were killed before their teardown go first:
	// they hold ports and names this one may need.
	reapCtx, cancelReap := context.WithTimeout(context.Background(), teardownTime)
	reaped, err := ReapOrphans(reapCtx, LeaseDir())
	cancelReap()
	for _, p := range reaped {
		fmt.Fprintf(os.Stderr, "resilcheck-compose: removed project %s, left behind by a helper that was killed\n", p)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "resilcheck-compose: %v\n", err)
	}
	ls, err := acquire(LeaseDir(), project)
	switch {
	case errors.Is(err, ErrLeaseDirNotPrivate):
		// Run unleased: a kill then leaks the project, as it did before
		// leases, but no one else's lease is trusted.
		fmt.Fprintf(os.Stderr, "resilcheck-compose: %v: running without a lease, so a killed helper's project is not reaped\n", err)
	case err != nil:
		send(compose.Event{Event: compose.EventError, Error: err.Error()})
		return err
	}
	st, err := Open(project, files)
	if err != nil {
		ls.release()
		send(compose.Event{Event: compose.EventError, Error: err.Error()})
		return err
	}
	upCtx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-term:
			cancel()
		case <-upCtx.Done():
		}
	}()
	services, err := st.Up(upCtx, service)
	cancel()
	if err != nil {
		logs, _ := st.Logs(context.Background())
		derr := down(st)
		if derr == nil {
			ls.release()
		}
		send(compose.Event{Event: compose.EventError, Error: errString(err, derr), Logs: logs})
		return err
	}
	send(compose.Event{Event: compose.EventUp, Services: services})

	requests := make(chan compose.Request)
	go func() {
		defer close(requests)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			var r compose.Request
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				r.Op = fmt.Sprintf("unreadable request %.100q", sc.Text())
			}
			requests <- r
		}
	}()
	for {
		var r compose.Request
		var open bool
		select {
		case r, open = <-requests:
		case <-term:
		}
		switch {
		case !open, r.Op == compose.OpDown:
			if err := down(st); err != nil {
				// The lease stays: the next helper reaps what is left.
				send(compose.Event{Event: compose.EventError, Error: err.Error()})
				return err
			}
			ls.release()
			send(compose.Event{Event: compose.EventDown})
			return nil
		case r.Op == compose.OpLogs:
			logs, err := st.Logs(context.Background())
			if err != nil && len(logs) == 0 {
				send(compose.Event{Event: compose.EventError, Error: err.Error()})
				continue
			}
			send(compose.Event{Event: compose.EventLogs, Logs: logs})
		default:
			send(compose.Event{Event: compose.EventError, Error: fmt.Sprintf("unknown request %q", r.Op)})
		}
	}
}

func down(st *Stack) error {
	ctx, cancel := context.WithTimeout(context.Background(), teardownTime)
	defer cancel()
	return st.Down(ctx)
}

func errString(err, downErr error) string {
	if downErr == nil {
		return err.Error()
	}
	return fmt.Sprintf("%v; and tearing it down: %v", err, downErr)
}
