package certify

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"slices"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/targets"
)

// placeTiers starts the hop proxy before every tier after the first that
// the launcher does not start itself, forwarding to the tier's URL rendered
// with the run's named ports, and returns the proxies' URLs by tier.
func (e *environment) placeTiers(ports map[string]int) (map[string]string, error) {
	urls := map[string]string{}
	for i, tr := range e.spec.Tiers {
		if _, later := e.tiers[tr.Name]; later || i == 0 {
			continue
		}
		u, err := tr.RenderURL(targets.UpstreamValues{Ports: ports})
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
		p, err := e.addHop(i, u)
		if err != nil {
			return nil, err
		}
		urls[tr.Name] = p.URL()
	}
	return urls, nil
}

// placeTier is LaunchEnv.PlaceTier: it puts a hop proxy before a tier the
// launcher started at upstream.
func (e *environment) placeTier(_ context.Context, name, upstream string) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := claim(e.tiers, "tier", name); err != nil {
		return "", err
	}
	i := slices.IndexFunc(e.spec.Tiers, func(t targets.Tier) bool { return t.Name == name })
	if i < 1 {
		return "", fmt.Errorf("%w: the launcher starts tier %q, which the spec does not declare behind its first tier", ErrConfig, name)
	}
	p, err := e.addHop(i, upstream)
	if err != nil {
		return "", err
	}
	e.tiers[name] = true
	return p.URL(), nil
}

// addHop starts the proxy before the spec's tier i, forwarding to upstream,
// journaled as side check.HopSide(name).
func (e *environment) addHop(i int, upstream string) (*faults.Proxy, error) {
	tr := e.spec.Tiers[i]
	u, err := url.Parse(upstream)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("%w: tier %s: %q is not a URL to forward to", ErrConfig, tr.Name, upstream)
	}
	side := check.HopSide(tr.Name)
	opts := append([]faults.Option{faults.WithHeaders(journalHeaders(e.spec)...)}, protocolOptions(tr.Protocol)...)
	p, err := startProxy(side, u.String(), tr.Listen, e.seed, e.journal, e.log, append(opts, e.proxyOpts...)...)
	if err != nil {
		return nil, fmt.Errorf("%w: tier %s: %w", ErrUnhealthy, tr.Name, err)
	}
	e.closers = append(e.closers, func() { shutdown(p) })
	e.target.URLs[side] = p.URL()
	e.upstream = append(e.upstream, realUpstream{name: tr.Name, url: upstream, tier: true})
	e.hops = append(e.hops, check.Hop{From: e.spec.Tiers[i-1].Name, To: tr.Name, Proxy: p})
	slices.SortStableFunc(e.hops, func(a, b check.Hop) int { return cmp.Compare(e.tierIndex(a.To), e.tierIndex(b.To)) })
	return p, nil
}

// tierIndex is tier name's place in the spec's chain, -1 if absent.
func (e *environment) tierIndex(name string) int {
	return slices.IndexFunc(e.spec.Tiers, func(t targets.Tier) bool { return t.Name == name })
}

// harnessHops returns the hops as the checks see them.
func (e *environment) harnessHops() []check.Hop { return slices.Clone(e.hops) }
