package targets

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"
)

// Launcher brings a target up so the harness can certify it. Launch blocks
// until the service is healthy (its health URL answered 2xx) or returns an
// error; errors meaning "not healthy" match ErrUnhealthy.
type Launcher interface {
	Launch(ctx context.Context, env LaunchEnv) (*Running, error)
}

// DependencyLauncher is a Launcher that starts some of its service's
// dependencies itself (the reference stack starts its processor; a compose
// file may start a database). The harness places no dependency proxy up
// front for the names Launched returns: Launch must call env.PlaceDependency
// for each once it knows where the dependency listens, and give the service
// the URL that returns instead. The harness fails the run if it does not.
type DependencyLauncher interface {
	Launcher
	Launched() []string
}

// LaunchEnv is what the harness provides a launcher.
type LaunchEnv struct {
	// Dependencies maps each declared dependency the harness placed before
	// Launch (all but the launched ones) to its proxy's base URL.
	Dependencies map[string]string
	// PlaceDependency puts the harness's dependency proxy in front of the
	// dependency name, which the launcher started at upstream, and returns
	// the URL the service must call instead. Safe for concurrent use; nil
	// means no harness is listening (the service may call upstream directly).
	PlaceDependency func(ctx context.Context, name, upstream string) (string, error)
	TempDir         string    // scratch space for the run; empty = the launcher makes and removes one
	Port            int       // the port the service should listen on; 0 = the launcher picks a free one
	Log             io.Writer // receives the service's output (bounded); nil = discarded
	Seed            uint64    // the run's seed, for targets that draw at random; 0 = the target's own choice
}

// Running is a launched target. Stop is safe to call more than once and from
// several goroutines; later calls return the first call's result.
type Running struct {
	// URL is the service's base URL, e.g. http://127.0.0.1:8080. Use it rather
	// than Target.Service.URL, which is a template for kind process.
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

// LauncherFactory makes the launcher for a validated, defaulted Target.
type LauncherFactory func(t *Target) (Launcher, error)

// Plugin is one kind of target: what it adds to its specs and how it is
// brought up. The packages of the kinds defined outside this one export
// theirs (e.g. compose.Kind), for a program to put in its Plugins.
type Plugin struct {
	Spec     KindSpec
	Launcher LauncherFactory // required
}

// Plugins is a table of the kinds a program brings up, by name.
type Plugins map[Kind]Plugin

// RunningPlugin is kind running: a service already up.
func RunningPlugin() Plugin {
	return Plugin{Launcher: func(t *Target) (Launcher, error) { return &RunningLauncher{Target: t}, nil }}
}

// ProcessPlugin is kind process: a command resilcheck starts and stops.
func ProcessPlugin() Plugin {
	return Plugin{Launcher: func(t *Target) (Launcher, error) { return &ProcessLauncher{Target: t}, nil }}
}

// Specs returns what each kind adds to its specs, for WithKinds.
func (ps Plugins) Specs() map[Kind]KindSpec {
	specs := make(map[Kind]KindSpec, len(ps))
	for k, p := range ps {
		specs[k] = p.Spec
	}
	return specs
}

// NewLauncher returns the launcher of t's kind. t must be validated and
// defaulted (Parse and Load return it so).
func (ps Plugins) NewLauncher(t *Target) (Launcher, error) {
	p, ok := ps[t.Kind]
	if !ok || p.Launcher == nil {
		return nil, fmt.Errorf("targets: no launcher registered for kind %q", t.Kind)
	}
	return p.Launcher(t)
}
