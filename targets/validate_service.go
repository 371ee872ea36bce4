package targets

import (
	"fmt"
	"strings"
)

func (v *validator) checkService() {
	s := v.t.Service
	switch v.kind {
	case KindRunning, KindCompose:
		if v.plain("service.url", s.URL, "kind "+string(v.kind)+" has no chosen port") {
			if msg := urlProblem(s.URL); msg != "" {
				v.errf("service.url", "%s", msg)
			}
		}
	case KindProcess:
		if s.URL != "" && v.template("service.url", s.URL, v.sampleProcess()) {
			u, _ := Render(s.URL, v.sampleProcess())
			if msg := urlProblem(u); msg != "" {
				v.errf("service.url", "%s", msg)
			}
		}
	}
	if s.Health != "" && v.plain("service.health", s.Health, "health is fixed") {
		if msg := pathOrURLProblem(s.Health); msg != "" {
			v.errf("service.health", "%s", msg)
		} else if strings.HasPrefix(s.Health, "/") && IsGRPCHealth(s.Health) && !s.Protocol.HTTP2() {
			v.errf("service.health", "the gRPC health method needs HTTP/2 on the service's port: set service.protocol to %q (or %q for https)", ProtocolH2C, ProtocolH2)
		}
	}
	v.positive("service.startup_timeout", s.StartupTimeout, s.StartupTimeout < 0)
	switch s.Front {
	case "", FrontDirect, FrontProxy:
	default:
		v.errf("service.front", "expected %q or %q, got %q", FrontDirect, FrontProxy, s.Front)
	}
}

func (v *validator) checkProcess() {
	p := v.t.Process
	if v.kind != KindProcess {
		return
	}
	if len(p.Command) == 0 {
		v.errf("process.command", "required for kind process; expected a list such as [\"./bin/server\", \"--port\", \"{{.Port}}\"]")
	}
	sample := v.sampleProcess()
	for i, a := range p.Command {
		path := fmt.Sprintf("process.command[%d]", i)
		if i == 0 && strings.TrimSpace(a) == "" {
			v.errf(path, "the program to run must not be empty")
			continue
		}
		v.template(path, a, sample)
	}
	for _, k := range sortedKeys(p.Env) {
		if msg := envNameProblem(k); msg != "" {
			v.keyErrf("process.env."+k, "%s", msg)
			continue
		}
		v.template("process.env."+k, p.Env[k], sample)
	}
	v.plain("process.dir", p.Dir, "dir is a plain path")
	v.positive("process.stop_grace", p.StopGrace, p.StopGrace < 0)
	v.checkFiles()
}

// name checks the name of a dependency or tier at path, unique among
// those seen so far, and reports whether it is new.
func (v *validator) name(path, name, what, use string, seen map[string]bool) bool {
	switch {
	case name == "":
		v.errf(path, "required; %s", use)
	case !namePattern.MatchString(name):
		v.errf(path, "expected letters, digits, - and _ starting with a letter, got %q", name)
	case seen[name]:
		v.errf(path, "duplicate %s name %q", what, name)
	}
	isNew := !seen[name]
	seen[name] = true
	return isNew
}

// checkDependencies validates the dependencies and returns their names.
func (v *validator) checkDependencies() []string {
	var names []string
	seen := map[string]bool{}
	for i, d := range v.t.Dependencies {
		p := fmt.Sprintf("dependencies[%d]", i)
		if v.name(p+".name", d.Name, "dependency", "the name templates use as {{.Dependencies.NAME}}", seen) {
			names = append(names, d.Name)
		}
		switch {
		case d.Listen == "" && v.kind == KindRunning:
			v.errf(p+".listen", "required for kind running: the service already calls a fixed address, so the dependency proxy must listen there (e.g. 127.0.0.1:9091)")
		case d.Listen != "":
			if msg := listenProblem(d.Listen, v.kind != KindRunning); msg != "" {
				v.errf(p+".listen", "%s", msg)
			}
		}
		if d.Upstream != "" && v.upstreamTemplate(p+".upstream", d.Upstream) {
			up, _ := d.RenderUpstream(UpstreamValues{Ports: v.samplePorts()})
			if msg := urlProblem(up); msg != "" {
				v.errf(p+".upstream", "%s", msg)
			}
		}
		if d.Method != "" {
			if msg := methodProblem(d.Method); msg != "" {
				v.errf(p+".method", "%s", msg)
			}
		}
		if d.GRPC.Declared() {
			v.checkGRPCDependency(p, d)
		}
		if d.Path != "" && !strings.HasPrefix(d.Path, "/") {
			v.errf(p+".path", "expected a path starting with /, got %q", d.Path)
		}
		if d.StandIn.Status != 0 && (d.StandIn.Status < 200 || d.StandIn.Status > 599) {
			v.errf(p+".stand_in.status", "expected a status in 200..599, got %d", d.StandIn.Status)
		}
		if d.Upstream != "" && (d.StandIn.Status != 0 || d.StandIn.Body != "" || len(d.StandIn.Headers) > 0) {
			v.errf(p+".stand_in", "a stand-in answers only when there is no upstream; remove one of them")
		}
	}
	return names
}

// upstreamTemplate checks a dependency's upstream: a template over
// UpstreamValues for kind process, which chooses the named free ports,
// else a plain URL. It returns whether the upstream is usable.
func (v *validator) upstreamTemplate(path, up string) bool {
	if !strings.Contains(up, "{{") {
		return true
	}
	if v.kind != KindProcess {
		return v.plain(path, up, "only kind process chooses free ports, {{.Ports.NAME}}")
	}
	return v.template(path, up, UpstreamValues{Ports: v.samplePorts()})
}
