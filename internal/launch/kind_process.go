package launch

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"

	"github.com/resilcheck/resilcheck/targets"
)

// ProcessLauncher starts a kind-process target: it renders process.command
// and process.env with targets.ProcessValues, starts the command in its own
// process group with its output sent to Env.Log, and waits for health.
type ProcessLauncher struct {
	Target *targets.Target // validated and defaulted
}

var _ Launcher = (*ProcessLauncher)(nil)

// Launch starts the process and blocks until its health URL answers 2xx. A
// process that exits first yields an *ExitedError with its exit status and
// last output; one that stays unhealthy past service.startup_timeout is
// stopped and yields an *UnhealthyError (both match ErrUnhealthy). ctx also
// bounds the process's life: cancelling it stops the process as Stop does.
func (l *ProcessLauncher) Launch(ctx context.Context, env Env) (*Running, error) {
	t := l.Target
	p, err := newProc(env, t.PortNames(), t.Process.StopGrace)
	if err != nil {
		return nil, err
	}
	argv, vars, err := t.Process.Render(p.values)
	if err == nil {
		p.base, err = targets.Render(t.Service.URL, p.values)
	}
	if err != nil {
		p.cleanup()
		return nil, err
	}
	p.argv, p.dir, p.vars = argv, t.Process.Dir, withCAVariables(vars, env.CAFile)
	if err := p.start(ctx); err != nil {
		p.cleanup()
		return nil, err
	}
	health := func(ctx context.Context, done <-chan struct{}) error {
		return waitHealthy(ctx, healthURL(p.base, t.Service.Health), t.Service.StartupTimeout, done, env.ServiceTLS, HealthPort(t.Service.Health, t.Service.Protocol))
	}
	err = health(ctx, p.done)
	if errors.Is(err, errDied) {
		p.cleanup()
		return nil, &ExitedError{Command: argv, Err: p.exitErr(), Output: p.out.Tail()}
	}
	if err != nil {
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.grace+time.Second)
		defer cancel()
		_ = p.stop(stopCtx)
		var ue *UnhealthyError
		if errors.As(err, &ue) {
			ue.Output = p.out.Tail()
		}
		return nil, err
	}
	// The process's life is bound to ctx, and so is a restarted one's.
	crash := func(cctx context.Context) error { return p.crash(ctx, cctx, health) }
	return &Running{URL: p.base, StopFunc: p.stop, CrashFunc: crash}, nil
}

// proc is one started target process.
type proc struct {
	values  targets.ProcessValues
	argv    []string
	dir     string            // the working directory
	vars    map[string]string // the variables added to the environment
	base    string
	grace   time.Duration
	ownTemp bool // TempDir was made here and is removed on stop
	out     *outputLog
	life    sync.Mutex // held across a crash and a stop, so neither sees the other half done
	mu      sync.Mutex // guards pid, done and waitErr, which a crash replaces
	pid     int
	done    chan struct{} // closed once the process was reaped and its group killed
	waitErr error         // set before done closes
}

func newProc(env Env, portNames []string, grace time.Duration) (*proc, error) {
	p := &proc{grace: max(grace, 0), out: &outputLog{w: env.Log}, done: make(chan struct{})}
	deps := maps.Clone(env.Dependencies)
	if deps == nil {
		deps = map[string]string{}
	}
	ports := maps.Clone(env.Ports)
	if ports == nil {
		ports = map[string]int{}
	}
	tiers := maps.Clone(env.Tiers)
	if tiers == nil {
		tiers = map[string]string{}
	}
	p.values = targets.ProcessValues{Port: env.Port, TempDir: env.TempDir, Dependencies: deps, Tiers: tiers, Ports: ports, CAFile: env.CAFile, Broker: env.Broker}
	var missing []string
	for _, name := range portNames {
		if ports[name] == 0 {
			missing = append(missing, name)
		}
	}
	if p.values.Port == 0 {
		missing = append(missing, "") // the service's own
	}
	if len(missing) > 0 {
		taken := slices.Collect(maps.Values(ports))
		picked, err := freePorts(len(missing), taken)
		if err != nil {
			return nil, err
		}
		for i, name := range missing {
			if name == "" {
				p.values.Port = picked[i]
			} else {
				ports[name] = picked[i]
			}
		}
	}
	if p.values.TempDir == "" {
		dir, err := os.MkdirTemp("", "resilcheck-target-")
		if err != nil {
			return nil, fmt.Errorf("targets: temp dir: %w", err)
		}
		p.values.TempDir, p.ownTemp = dir, true
	}
	return p, nil
}

func (p *proc) start(ctx context.Context) error {
	cmd := exec.CommandContext(ctx, p.argv[0], p.argv[1:]...)
	cmd.Dir = p.dir
	cmd.Env = os.Environ()
	for _, k := range slices.Sorted(maps.Keys(p.vars)) {
		cmd.Env = append(cmd.Env, k+"="+p.vars[k])
	}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	ownGroup(cmd)
	cmd.Cancel = func() error { return signalGroup(cmd.Process.Pid, sigTerm) }
	cmd.WaitDelay = p.grace // then the leader is killed and pipes held by strays are closed
	if err := cmd.Start(); err != nil {
		return &ExitedError{Command: p.argv, Err: fmt.Errorf("not started: %w", err)}
	}
	pid, done := cmd.Process.Pid, make(chan struct{})
	p.mu.Lock()
	p.pid, p.done = pid, done
	p.mu.Unlock()
	go func() {
		err := cmd.Wait()
		_ = signalGroup(pid, sigKill) // children left behind by a leader that exited
		p.mu.Lock()
		p.waitErr = err
		p.mu.Unlock()
		close(done)
	}()
	return nil
}

// crash kills the process group at once and starts the command again in
// the same temporary directory (the crashed process's files survive, as a
// disk does), bound to life, then waits for health.
func (p *proc) crash(life, ctx context.Context, health func(context.Context, <-chan struct{}) error) error {
	p.life.Lock()
	defer p.life.Unlock()
	if life.Err() != nil {
		return life.Err() // stopping: nothing to start again
	}
	p.mu.Lock()
	pid, done := p.pid, p.done
	p.mu.Unlock()
	select {
	case <-done: // exited and reaped already: its group id may be another's now
	default:
		_ = signalGroup(pid, sigKill)
		<-done // bounded: SIGKILL cannot be ignored and WaitDelay closes held pipes
	}
	if err := p.start(life); err != nil {
		return err
	}
	p.mu.Lock()
	done = p.done
	p.mu.Unlock()
	if err := health(ctx, done); err != nil {
		if errors.Is(err, errDied) {
			return &ExitedError{Command: p.argv, Err: p.exitErr(), Output: p.out.Tail()}
		}
		return err
	}
	return nil
}

func (p *proc) exitErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waitErr
}

// stop sends SIGTERM to the group, SIGKILL after the grace period (or at
// once when ctx is done), and waits until the process is reaped.
func (p *proc) stop(ctx context.Context) error {
	p.life.Lock()
	defer p.life.Unlock()
	defer p.cleanup()
	p.mu.Lock()
	pid, done := p.pid, p.done
	p.mu.Unlock()
	select {
	case <-done:
		return nil
	default:
	}
	if err := signalGroup(pid, sigTerm); err != nil {
		return fmt.Errorf("targets: stopping %s: %w", p.argv[0], err)
	}
	timer := time.NewTimer(p.grace)
	defer timer.Stop()
	select {
	case <-done:
		return nil
	case <-timer.C:
	case <-ctx.Done():
	}
	_ = signalGroup(pid, sigKill)
	<-done // bounded: SIGKILL cannot be ignored and WaitDelay closes held pipes
	return nil
}

func (p *proc) cleanup() {
	if p.ownTemp {
		_ = os.RemoveAll(p.values.TempDir)
	}
}

// FreePorts returns a distinct free loopback port for each name, for
// Env.Ports: the harness renders the dependency upstreams that name them
// before the launcher starts the process that listens on them.
func FreePorts(names []string) (map[string]int, error) {
	picked, err := freePorts(len(names), nil)
	if err != nil {
		return nil, err
	}
	ports := make(map[string]int, len(names))
	for i, name := range names {
		ports[name] = picked[i]
	}
	return ports, nil
}

// withCAVariables sets each of CAVariables to caFile in vars, unless
// caFile is empty or the spec's process.env sets it: the target's own
// choice stands.
func withCAVariables(vars map[string]string, caFile string) map[string]string {
	if caFile == "" {
		return vars
	}
	out := maps.Clone(vars)
	if out == nil {
		out = map[string]string{}
	}
	for _, k := range CAVariables {
		if _, set := out[k]; !set {
			out[k] = caFile
		}
	}
	return out
}
