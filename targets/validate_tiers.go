package targets

import (
	"cmp"
	"fmt"
	"maps"
	"net"
	"slices"
	"strings"
)

// checkTiers validates the chain of tiers: two or more, uniquely named, the
// first at service.url and each other one with a URL resilcheck's hop
// proxy forwards to (unless the kind starts its tiers itself).
func (v *validator) checkTiers() {
	tiers := v.t.Tiers
	if len(tiers) == 0 {
		return
	}
	if v.kind == KindClient {
		v.keyErrf("tiers", "kind client has no tiers: resilcheck is the client's server")
		return
	}
	if len(tiers) == 1 {
		v.errf("tiers", "a chain of one tier is the service itself: list two or more (the first answers at service.url), or leave tiers out")
	}
	if v.t.Service.Front == FrontDirect {
		v.errf("service.front", "direct contradicts tiers: the first tier, %s, stands in front of %s", tiers[0].Name, tiers[len(tiers)-1].Name)
	}
	seen := map[string]bool{}
	for i, tr := range tiers {
		p := fmt.Sprintf("tiers[%d]", i)
		v.name(p+".name", tr.Name, "tier", "reports name the tier by it, and templates use {{.Tiers.NAME}}", seen)
		if i == 0 {
			if tr.URL != "" {
				v.errf(p+".url", "the first tier answers at service.url; leave its url out")
			}
			if tr.Listen != "" {
				v.errf(p+".listen", "the first tier has no hop proxy before it (the front proxy is there); leave its listen out")
			}
			if tr.Protocol != "" {
				v.errf(p+".protocol", "the front proxy speaks service.protocol to the first tier; set that, and leave this out")
			}
			continue
		}
		if tr.URL != "" {
			v.checkProtocol(p+".protocol", tr.Protocol, tr.URL)
		} else if tr.Protocol != "" && v.kind == KindReference {
			v.errf(p+".protocol", "kind reference says what its own tiers speak; leave this out")
		}
		v.checkTierAddrs(p, tr)
		v.checkTierUsed(p, tr)
	}
}

// checkTierUsed requires a kind that starts the tier above to pass it the
// hop proxy's URL: a tier above that calls the tier directly goes around
// the hop, and nothing between them is seen.
func (v *validator) checkTierUsed(p string, tr Tier) {
	var texts []string
	where := ""
	switch v.kind {
	case KindProcess:
		texts = append(slices.Clone(v.t.Process.Command), slices.Collect(maps.Values(v.t.Process.Env))...)
		where = "process.command or process.env"
	case KindCompose:
		texts = slices.Collect(maps.Values(v.t.Compose.Env))
		where = "compose.env"
	default:
		return
	}
	for _, text := range texts {
		if strings.Contains(text, ".Tiers."+tr.Name) || strings.Contains(text, `.Tiers "`+tr.Name+`"`) {
			return
		}
	}
	v.errf(p+".name", "no template in %s passes {{.Tiers.%s}} on: the tier above would call %s directly, around the hop proxy", where, templateName(tr.Name), tr.Name)
}

// checkTierAddrs checks where a tier after the first listens and where its
// hop proxy does.
func (v *validator) checkTierAddrs(p string, tr Tier) {
	switch {
	case tr.URL == "" && v.kind != KindReference:
		v.errf(p+".url", "required: where %s listens, for the hop proxy before it to forward to (e.g. http://127.0.0.1:{{.Ports.%s}} for kind process)", tr.Name, templateName(tr.Name))
	case tr.URL != "" && v.upstreamTemplate(p+".url", tr.URL):
		u, _ := tr.RenderURL(UpstreamValues{Ports: v.samplePorts()})
		if msg := urlProblem(u); msg != "" {
			v.errf(p+".url", "%s", msg)
		}
	}
	switch {
	case tr.Listen == "" && v.kind == KindRunning:
		v.errf(p+".listen", "required for kind running: the tier above already calls a fixed address, so the hop proxy must listen there (e.g. 127.0.0.1:9092) and %s elsewhere (url)", tr.Name)
	case tr.Listen != "":
		if msg := listenProblem(tr.Listen, v.kind != KindRunning); msg != "" {
			v.errf(p+".listen", "%s", msg)
		}
	}
	if v.kind == KindCompose && !IsLoopbackHost(v.t.Compose.DependencyHost) {
		if host, _, err := net.SplitHostPort(tr.Listen); err == nil && IsLoopbackHost(host) {
			v.errf(p+".listen", "containers reach the hop proxy through %s, which is not the host's loopback: listen on 0.0.0.0 (the default for kind compose), or set compose.dependency_host: 127.0.0.1 for services in network_mode: host", cmp.Or(v.t.Compose.DependencyHost, DefaultDependencyHost))
		}
	}
}

// templateName is how a template names name: a field when it has no -.
func templateName(name string) string {
	for _, c := range name {
		if c == '-' {
			return "NAME"
		}
	}
	return name
}

// sampleTiers gives every tier after the first a sample hop URL on host.
func (v *validator) sampleTiers(host string) map[string]string {
	tiers := map[string]string{}
	for i, tr := range v.t.Tiers {
		if i > 0 {
			tiers[tr.Name] = fmt.Sprintf("http://%s:%d", host, 9191+i)
		}
	}
	return tiers
}
