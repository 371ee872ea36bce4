package targets

import (
	"context"
	"fmt"
	"io"
	"sync"
)

// Launcher brings a target up so the harness can certify it. Launch blocks
// until the service is healthy (its health URL answered 2xx) or returns an
// error; errors meaning "not healthy" match ErrUnhealthy.
type Launcher interface {
	Launch(ctx context.Context, env LaunchEnv) (*Running, error)
}

// LaunchEnv is what the harness provides a launcher. The harness starts its
// dependency proxies first, so their URLs are known here.
type LaunchEnv struct {
	Dependencies map[string]string // dependency name → its proxy's base URL
	TempDir      string            // scratch space for the run; empty = the launcher makes and removes one
	Port         int               // the port the service should listen on; 0 = the launcher picks a free one
	Log          io.Writer         // receives the service's output (bounded); nil = discarded
}

// Running is a launched target. Stop is safe to call more than once and from
// several goroutines; later calls return the first call's result.
type Running struct {
	// URL is the service's base URL, e.g. http://127.0.0.1:8080. Use it rather
	// than Target.Service.URL, which is a template for kind process.
	URL string

	// StopFunc tears the target down; nil means there is nothing to stop.
	// Launchers outside this package (e.g. the reference) set it.
	StopFunc func(ctx context.Context) error

	once sync.Once
	err  error
}

// Stop tears the target down, blocking until it is gone or ctx is done.
func (r *Running) Stop(ctx context.Context) error {
	r.once.Do(func() {
		if r.StopFunc != nil {
			r.err = r.StopFunc(ctx)
		}
	})
	return r.err
}

// LauncherFactory makes the launcher for a validated, defaulted Target.
type LauncherFactory func(t *Target) (Launcher, error)

var (
	launchersMu sync.RWMutex
	launchers   = map[Kind]LauncherFactory{
		KindRunning: func(t *Target) (Launcher, error) { return &RunningLauncher{Target: t}, nil },
		KindProcess: func(t *Target) (Launcher, error) { return &ProcessLauncher{Target: t}, nil },
	}
)

// RegisterLauncher makes NewLauncher use f for targets of kind. It is how the
// reference package plugs in kind reference (this package cannot import it).
// It panics on an empty kind, a nil f or a kind already registered. Safe for
// concurrent use.
func RegisterLauncher(kind Kind, f LauncherFactory) {
	if kind == "" || f == nil {
		panic("targets: RegisterLauncher with an empty kind or nil factory")
	}
	launchersMu.Lock()
	defer launchersMu.Unlock()
	if _, dup := launchers[kind]; dup {
		panic(fmt.Sprintf("targets: launcher for kind %q registered twice", kind))
	}
	launchers[kind] = f
}

// NewLauncher returns the launcher for t's kind. t must be validated and
// defaulted (Parse and Load return it so).
func NewLauncher(t *Target) (Launcher, error) {
	launchersMu.RLock()
	f, ok := launchers[t.Kind]
	launchersMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("targets: no launcher registered for kind %q", t.Kind)
	}
	return f(t)
}
