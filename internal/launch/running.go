package launch

import (
	"context"
	"sync"
	"time"
)

// Running is a launched target. Stop is safe to call more than once and from
// several goroutines; later calls return the first call's result.
type Running struct {
	// URL is the service's base URL, e.g. http://127.0.0.1:8080. Use it rather
	// than the spec's service.url, which is a template for kind process.
	URL string
	// URLs names further URLs worth reporting (e.g. each component of a
	// stack); nil = none.
	URLs map[string]string
	// Defects lists the defects switched on in the target on purpose, for
	// the report; nil = none.
	Defects []string

	// StopFunc tears the target down; nil means there is nothing to stop.
	// Launchers outside this package (e.g. the reference) set it.
	StopFunc func(ctx context.Context) error
	// StopTimeout is how long a caller should give Stop; zero means
	// DefaultStopTimeout. A compose project's teardown takes longer than a
	// process's.
	StopTimeout time.Duration
	// LogsFunc returns the output of each part of the target so far (a
	// compose stack's containers), for a report that needs it: a failed
	// check is read next to the target's own account. Called before Stop;
	// nil means the target keeps no logs of its own.
	LogsFunc func(ctx context.Context) ([]Log, error)
	// CrashFunc kills the target at once, as a crash would (kind process:
	// SIGKILL to its group, no grace, nothing flushed), starts it again as
	// it was started, and returns once it is healthy; a launcher whose
	// target runs in process (the reference) drops what it holds only in
	// memory instead. nil means the target cannot be crashed here (a
	// launcher that did not start it).
	CrashFunc func(ctx context.Context) error

	once sync.Once
	err  error
}

// DefaultStopTimeout is how long Stop is given when the target does not say.
const DefaultStopTimeout = 10 * time.Second

// Stop tears the target down, blocking until it is gone or ctx is done.
func (r *Running) Stop(ctx context.Context) error {
	r.once.Do(func() {
		if r.StopFunc != nil {
			r.err = r.StopFunc(ctx)
		}
	})
	return r.err
}
