package targets

import (
	"cmp"
	"fmt"
	"net"
	"strings"
)

// DefaultDependencyHost is how containers reach resilcheck's dependency
// proxies on the host: Docker's name for the host gateway.
const DefaultDependencyHost = "host.docker.internal"

// checkCompose validates the compose section of a kind-compose spec; the
// kind's defaults and launcher come from package compose (compose.Kind).
func (v *validator) checkCompose() {
	if v.kind != KindCompose {
		return
	}
	c := v.t.Compose
	if len(c.Files) == 0 {
		v.errf("compose.files", "required for kind compose; expected a list such as [compose.yaml]")
	}
	for i, f := range c.Files {
		path := fmt.Sprintf("compose.files[%d]", i)
		if strings.TrimSpace(f) == "" {
			v.errf(path, "must not be empty")
			continue
		}
		v.plain(path, f, "files are plain paths, relative to the spec file")
	}
	if c.Service == "" {
		v.errf("compose.service", "required for kind compose: the compose service that service.url reaches")
	} else {
		v.plain("compose.service", c.Service, "the service is a name in the compose file")
	}
	if c.Project != "" && !projectPattern(c.Project) {
		v.errf("compose.project", "expected lowercase letters, digits, - and _ starting with a letter or digit (as docker compose requires), got %q", c.Project)
	}
	if h := c.DependencyHost; h != "" && (strings.ContainsAny(h, "/:{} ") || h != strings.TrimSpace(h)) {
		v.errf("compose.dependency_host", "expected a host name or IPv4 address such as host.docker.internal, got %q", h)
	}
	sample := v.sampleCompose()
	for _, k := range sortedKeys(c.Env) {
		if msg := envNameProblem(k); msg != "" {
			v.keyErrf("compose.env."+k, "%s", msg)
			continue
		}
		v.template("compose.env."+k, c.Env[k], sample)
	}
	if IsLoopbackHost(c.DependencyHost) {
		return
	}
	// Containers on a bridge network reach the host through its gateway
	// address, never its loopback: a proxy listening there is unreachable.
	for i, d := range v.t.Dependencies {
		if host, _, err := net.SplitHostPort(d.Listen); err == nil && IsLoopbackHost(host) {
			v.errf(fmt.Sprintf("dependencies[%d].listen", i), "containers reach the proxy through %s, which is not the host's loopback: listen on 0.0.0.0 (the default for kind compose), or set compose.dependency_host: 127.0.0.1 for services in network_mode: host", cmp.Or(c.DependencyHost, DefaultDependencyHost))
		}
	}
}

func (v *validator) sampleCompose() ComposeValues {
	deps := map[string]string{}
	for i, d := range v.deps {
		deps[d] = fmt.Sprintf("http://%s:%d", cmp.Or(v.t.Compose.DependencyHost, DefaultDependencyHost), 9091+i)
	}
	return ComposeValues{Project: "resilcheck-sample", Dependencies: deps, Tiers: v.sampleTiers(cmp.Or(v.t.Compose.DependencyHost, DefaultDependencyHost))}
}

// IsLoopbackHost reports whether host names the local machine's loopback
// interface (localhost or a loopback IP).
func IsLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// projectPattern is docker compose's rule for project names.
func projectPattern(s string) bool {
	for i, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case (c == '-' || c == '_') && i > 0:
		default:
			return false
		}
	}
	return s != ""
}
