package compose

import (
	"net"
	"net/url"
	"slices"
	"time"

	"github.com/resilcheck/resilcheck/targets"
)

// DefaultStartupTimeout bounds bringing a project up and waiting for its
// health: containers take longer than a process to start.
const DefaultStartupTimeout = 60 * time.Second

// Defaults fills a kind-compose spec's zero fields: the startup timeout,
// the dependency host, and where the dependency and hop proxies listen. Containers
// on a bridge network reach the host at its gateway address, so the proxies
// listen on every interface unless the services share the host's network
// (dependency_host loopback). It assigns fields only, so it is idempotent.
func Defaults(t *targets.Target) {
	if t.Service.StartupTimeout == 0 {
		t.Service.StartupTimeout = DefaultStartupTimeout
	}
	if t.Compose.DependencyHost == "" {
		t.Compose.DependencyHost = targets.DefaultDependencyHost
	}
	listen := "0.0.0.0:0"
	if targets.IsLoopbackHost(t.Compose.DependencyHost) {
		listen = "127.0.0.1:0"
	}
	if slices.ContainsFunc(t.Dependencies, func(d targets.Dependency) bool { return d.Listen == "" }) {
		deps := slices.Clone(t.Dependencies)
		for i := range deps {
			if deps[i].Listen == "" {
				deps[i].Listen = listen
			}
		}
		t.Dependencies = deps
	}
	if slices.ContainsFunc(t.Tiers[min(1, len(t.Tiers)):], func(tr targets.Tier) bool { return tr.Listen == "" }) {
		tiers := slices.Clone(t.Tiers)
		for i := 1; i < len(tiers); i++ {
			if tiers[i].Listen == "" {
				tiers[i].Listen = listen
			}
		}
		t.Tiers = tiers
	}
}

// containerURL is the URL containers call a dependency proxy at: the
// proxy's own URL with its host replaced by host.
func containerURL(proxyURL, host string) (string, error) {
	u, err := url.Parse(proxyURL)
	if err != nil {
		return "", err
	}
	u.Host = net.JoinHostPort(host, u.Port())
	return u.String(), nil
}
