package certify

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"time"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// placeTarget starts a dependency proxy for every dependency the spec
// declares, launches the target with their URLs, and puts the front proxy
// before it.
func placeTarget(ctx context.Context, t *targets.Target, seed uint64, j *faults.Journal, log *slog.Logger, out io.Writer) (*environment, error) {
	env := &environment{target: reports.Target{Name: t.Name, Kind: string(t.Kind), URLs: map[string]string{}}}
	ok := false
	defer func() {
		if !ok {
			env.close()
		}
	}()
	ledger := t.Effects.Ledger.Dependency
	urls := map[string]string{}
	for _, d := range t.Dependencies {
		p, err := dependencyProxy(d, seed, j, log, faults.WithHeaders(journalHeaders(t)...))
		if err != nil {
			return nil, err
		}
		env.closers = append(env.closers, func() { shutdown(p) })
		urls[d.Name] = p.URL()
		env.target.URLs["dependency:"+d.Name] = p.URL()
		if d.Name == ledger || env.dep == nil {
			env.dep = p
		}
	}
	launcher, err := targets.NewLauncher(t)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	running, err := launcher.Launch(ctx, targets.LaunchEnv{Dependencies: urls, Log: out})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnhealthy, err)
	}
	env.closers = append(env.closers, func() {
		c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = running.Stop(c)
	})
	front, err := startProxy("front", running.URL, seed, j, log, faults.WithHeaders(journalHeaders(t)...))
	if err != nil {
		return nil, err
	}
	env.front = front
	env.closers = append(env.closers, func() { shutdown(front) })
	env.target.URLs["service"] = running.URL
	env.target.URLs["front"] = front.URL()
	env.health = t.Service.Health
	ok = true
	return env, nil
}

func dependencyProxy(d targets.Dependency, seed uint64, j *faults.Journal, log *slog.Logger, extra ...faults.Option) (*faults.Proxy, error) {
	opts := []faults.Option{faults.WithSide("dependency"), faults.WithSeed(seed), faults.WithJournal(j),
		faults.WithLogger(log.With("proxy", "dependency", "dependency", d.Name))}
	opts = append(opts, extra...)
	if d.Upstream != "" {
		u, err := url.Parse(d.Upstream)
		if err != nil {
			return nil, fmt.Errorf("%w: dependency %s: %w", ErrConfig, d.Name, err)
		}
		opts = append(opts, faults.WithUpstream(u))
	} else {
		body := d.StandIn.Body
		if body == "" {
			body = "{}"
		}
		headers := d.StandIn.Headers
		if headers == nil {
			headers = map[string]string{"Content-Type": "application/json"}
		}
		opts = append(opts, faults.WithStandIn(faults.Respond{Status: d.StandIn.Status, Headers: headers, Body: body}))
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
