package certify

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/internal/natsbroker"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// environment is the target with a proxy on each side.
type environment struct {
	front, dep *faults.Proxy
	depGRPC    bool // the dependency behind dep is gRPC, so checks refuse its calls with a grpc-status
	target     reports.Target
	health     string // the target's health path
	closers    []func()

	spec     *targets.Target
	seed     uint64
	journal  *faults.Journal
	log      *slog.Logger
	mu       sync.Mutex      // guards what PlaceDependency adds
	launched map[string]bool // dependencies the launcher starts; true once placed
	tiers    map[string]bool // tiers the launcher starts; true once placed
	hops     []check.Hop     // the hop proxies, in the spec's order of tiers once placed
	upstream []realUpstream  // the real upstreams the dependency proxies forward to, for the preflight
	running  *launch.Running
	teardown error // why stopping the target failed, once closed

	proxyOpts []faults.Option  // for every proxy placed, see placeTarget
	tls       *runTLS          // the run's authority and how proxies verify TLS onward
	webhook   *faults.Proxy    // the proxy before the webhook sender's endpoint; nil without one
	sink      *sink            // the endpoint behind it
	broker    *natsbroker.NATS // the broker a queue consumer reads from; nil without one
}

// interruptedStop bounds the target's teardown once the run was
// interrupted: the partial report waits for it, and the user's second
// signal allows a few seconds (stopNow), so in-flight requests are not
// waited for, as a finished run's are.
const interruptedStop = time.Second

// stopOnClose makes close stop running, giving it its StopTimeout, or
// interruptedStop once run has ended (the run was interrupted), and keep
// why it failed in e.teardown.
func (e *environment) stopOnClose(run context.Context, running *launch.Running) {
	e.closers = append(e.closers, func() {
		budget := cmp.Or(running.StopTimeout, launch.DefaultStopTimeout)
		if run.Err() != nil {
			budget = min(budget, interruptedStop)
		}
		c, cancel := context.WithTimeout(context.Background(), budget)
		defer cancel()
		if err := running.Stop(c); err != nil {
			e.teardown = err
		}
	})
}

func (e *environment) close() {
	for i := len(e.closers) - 1; i >= 0; i-- {
		e.closers[i]()
	}
}

// placeTarget starts a dependency proxy for every dependency the spec
// declares and the launcher does not start itself (its upstream rendered with
// the named free ports chosen for the run), launches the target with their
// URLs and those ports through the launcher kinds has for it (placing a proxy
// before each dependency it starts, when it asks), and puts the front proxy
// before it.
// proxyOpts go to every proxy it starts (a copy's mirror and ID prefix);
// rt says which speak TLS, and is handed to the target.
func placeTarget(ctx context.Context, t *targets.Target, kinds launch.Kinds, seed uint64, j *faults.Journal, log *slog.Logger, out io.Writer, rt *runTLS, proxyOpts ...faults.Option) (*environment, error) {
	env := &environment{
		target: reports.Target{Name: t.Name, Kind: string(t.Kind), URLs: map[string]string{}},
		spec:   t, seed: seed, journal: j, log: log, launched: map[string]bool{}, tiers: map[string]bool{}, proxyOpts: proxyOpts, tls: rt,
	}
	ok := false
	defer func() {
		if !ok {
			env.close()
		}
	}()
	launcher, err := kinds.NewLauncher(t)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if dl, isDL := launcher.(launch.DependencyLauncher); isDL {
		for _, name := range dl.Launched() {
			env.launched[name] = false
		}
	}
	if tl, isTL := launcher.(launch.TierLauncher); isTL {
		for _, name := range tl.LaunchedTiers() {
			env.tiers[name] = false
		}
	}
	// The named free ports are chosen here, not by the launcher: an upstream
	// may name one, and its proxy starts before the target.
	ports, err := launch.FreePorts(t.PortNames())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnhealthy, err) // as when the launcher finds no free port
	}
	urls := map[string]string{}
	for _, d := range t.Dependencies {
		if _, later := env.launched[d.Name]; later {
			continue
		}
		upstream, err := d.RenderUpstream(targets.UpstreamValues{Ports: ports})
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
		p, err := env.addDependency(d, upstream)
		if err != nil {
			return nil, err
		}
		urls[d.Name] = p.URL()
	}
	hops, err := env.placeTiers(ports)
	if err != nil {
		return nil, err
	}
	brokerURL, err := env.startBroker(ctx)
	if err != nil {
		return nil, err
	}
	running, err := launcher.Launch(ctx, launch.Env{
		Dependencies: urls, PlaceDependency: env.placeDependency, Log: out, Seed: seed, Ports: ports,
		Tiers: hops, PlaceTier: env.placeTier, CAFile: rt.caFile(), ServiceTLS: rt.service, Broker: brokerURL,
	})
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, fmt.Errorf("certify: stopped while launching the target: %w", ctx.Err())
	case err != nil:
		return nil, fmt.Errorf("%w: %w", ErrUnhealthy, err)
	}
	env.running = running
	env.stopOnClose(ctx, running)
	if err := env.checkPlaced(); err != nil {
		return nil, err
	}
	frontOpts := append([]faults.Option{faults.WithHeaders(journalHeaders(t)...)}, rt.frontOptions()...)
	frontOpts = append(frontOpts, protocolOptions(t.Service.Protocol)...)
	front, err := startProxy("front", running.URL, "", seed, j, log, append(frontOpts, proxyOpts...)...)
	if err != nil {
		return nil, err
	}
	env.front = front
	env.closers = append(env.closers, func() { shutdown(front) })
	env.target.URLs["service"] = running.URL
	maps.Copy(env.target.URLs, running.URLs) // the launcher may name its parts better
	env.target.URLs["front"] = front.URL()
	env.target.Defects = running.Defects
	env.health = t.Service.Health
	ok = true
	return env, nil
}

// placeDependency is LaunchEnv.PlaceDependency: it puts a dependency proxy
// before a dependency the launcher started at upstream.
func (e *environment) placeDependency(_ context.Context, name, upstream string) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := claim(e.launched, "dependency", name); err != nil {
		return "", err
	}
	i := slices.IndexFunc(e.spec.Dependencies, func(d targets.Dependency) bool { return d.Name == name })
	if i < 0 {
		return "", fmt.Errorf("%w: the launcher starts dependency %q, which the spec does not declare", ErrConfig, name)
	}
	p, err := e.addDependency(e.spec.Dependencies[i], upstream)
	if err != nil {
		return "", err
	}
	e.launched[name] = true
	return p.URL(), nil
}

// claim says why the launcher may not place the proxy before what name
// now: it is not one the launcher starts (launched has no entry), or it
// was placed already (its entry is true).
func claim(launched map[string]bool, what, name string) error {
	placed, ok := launched[name]
	switch {
	case !ok:
		return fmt.Errorf("certify: %s %q is not one the launcher starts", what, name)
	case placed:
		return fmt.Errorf("certify: %s %q placed twice", what, name)
	}
	return nil
}

// checkPlaced fails when the launcher started a declared dependency without
// placing the proxy before it: the run would miss every call to it.
func (e *environment) checkPlaced() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, d := range e.spec.Dependencies {
		if placed, launched := e.launched[d.Name]; launched && !placed {
			return fmt.Errorf("certify: the %s launcher did not place the proxy before dependency %q", e.spec.Kind, d.Name)
		}
	}
	for _, tr := range e.spec.Tiers {
		if placed, launched := e.tiers[tr.Name]; launched && !placed {
			return fmt.Errorf("certify: the %s launcher did not place the hop proxy before tier %q", e.spec.Kind, tr.Name)
		}
	}
	return nil
}

// addDependency starts the proxy for d, forwarding to upstream when given,
// else to d's upstream or its stand-in.
func (e *environment) addDependency(d targets.Dependency, upstream string) (*faults.Proxy, error) {
	upstream, endpoint, err := e.endpointOptions(d, upstream)
	if err != nil {
		return nil, err
	}
	if upstream != "" {
		d.Upstream = upstream
	}
	opts := append([]faults.Option{faults.WithHeaders(journalHeaders(e.spec)...)}, e.tls.dependencyOptions(d)...)
	p, err := dependencyProxy(d, e.spec.Dir, e.seed, e.journal, e.log, append(append(opts, e.proxyOpts...), endpoint...)...)
	if err != nil {
		return nil, err
	}
	e.closers = append(e.closers, func() { shutdown(p) })
	if endpoint != nil {
		e.webhook = p
		e.target.URLs["webhook:"+d.Name] = p.URL()
		return p, nil // its deliveries are neither a dependency's calls nor a real upstream
	}
	e.target.URLs["dependency:"+d.Name] = p.URL()
	if d.Upstream != "" {
		e.upstream = append(e.upstream, realUpstream{name: d.Name, url: d.Upstream})
	}
	if d.Name == e.spec.Effects.Ledger.Dependency || e.dep == nil {
		e.dep, e.depGRPC = p, d.GRPC.Declared()
	}
	return p, nil
}

func dependencyProxy(d targets.Dependency, dir string, seed uint64, j *faults.Journal, log *slog.Logger, extra ...faults.Option) (*faults.Proxy, error) {
	opts := []faults.Option{faults.WithSide("dependency"), faults.WithSeed(seed), faults.WithJournal(j),
		faults.WithLogger(log.With("proxy", "dependency", "dependency", d.Name))}
	opts = append(opts, extra...)
	if d.Upstream != "" {
		u, err := url.Parse(d.Upstream)
		if err != nil {
			return nil, fmt.Errorf("%w: dependency %s: %w", ErrConfig, d.Name, err)
		}
		opts = append(opts, faults.WithUpstream(u))
		opts = append(opts, protocolOptions(d.Protocol)...)
	} else {
		o, err := standInOption(d, dir)
		if err != nil {
			return nil, fmt.Errorf("%w: dependency %s: %w", ErrConfig, d.Name, err)
		}
		opts = append(opts, o)
	}
	p, err := faults.NewProxy(opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: dependency %s: %w", ErrConfig, d.Name, err)
	}
	addr := d.Listen
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	if _, err := p.Start(addr); err != nil {
		return nil, fmt.Errorf("%w: dependency %s proxy: %w", ErrUnhealthy, d.Name, err)
	}
	return p, nil
}
