package targets

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// portsSpec is a kind-process spec with command, env, service url and
// dependency upstream filled in by the cases.
const portsSpec = `kind: process
process: {command: [%s], env: {%s}}
service: {url: %s}
operations: [{name: pay, path: /v1/payments}]
dependencies: [{name: processor, upstream: %s}, {name: ledger}]
effects: {ledger: {dependency: processor}}
`

func portsTarget(command, env, url, upstream string) string {
	s := portsSpec
	for _, v := range []string{command, env, url, upstream} {
		s = strings.Replace(s, "%s", v, 1)
	}
	return s
}

func TestTarget_PortNames(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		spec string
		want []string
	}{
		{"none", portsTarget(`./svc, "{{.Port}}"`, `A: "{{.TempDir}}"`, `"http://127.0.0.1:{{.Port}}"`, "http://127.0.0.1:9090"), nil},
		{"everywhere, each once", portsTarget(`./svc, "--db={{.Ports.db}}", "{{.Ports.processor}}"`, `ADMIN: "127.0.0.1:{{.Ports.admin}}", P: "{{.Ports.processor}}"`,
			`"http://127.0.0.1:{{.Ports.front}}"`, `"http://127.0.0.1:{{.Ports.processor}}"`), []string{"admin", "db", "front", "processor"}},
		{"in a branch and a variable", portsTarget(`./svc, "{{if .Port}}{{.Ports.a}}{{else}}{{$.Ports.b}}{{end}}"`, `A: x`, `"http://127.0.0.1:{{.Port}}"`, `"http://127.0.0.1:{{.Ports.c}}"`),
			[]string{"a", "b", "c"}},
		{"after a dependency's URL", portsTarget(`./svc, "{{.Dependencies.processor}} {{.Ports.a}}"`, `A: "{{.Dependencies.ledger}}{{.Ports.b}}"`, `"http://127.0.0.1:{{.Port}}"`, "http://127.0.0.1:9090"),
			[]string{"a", "b"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tg, err := Parse("spec.yaml", []byte(c.spec))
			if err != nil {
				t.Fatal(err)
			}
			if got := tg.PortNames(); !slices.Equal(got, c.want) {
				t.Errorf("PortNames() = %q; want %q", got, c.want)
			}
		})
	}
	running := &Target{Kind: KindRunning, Dependencies: []Dependency{{Name: "p", Upstream: "http://127.0.0.1:{{.Ports.p}}"}}}
	if got := running.PortNames(); got != nil {
		t.Errorf("kind running: PortNames() = %q; want none (only kind process chooses ports)", got)
	}
}

func TestTarget_Validate_ports(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		spec string
		want string // "" = valid; else a line of the SpecError
	}{
		{"upstream names a port", portsTarget(`./svc, "{{.Ports.processor}}"`, `A: x`, `"http://127.0.0.1:{{.Port}}"`, `"http://127.0.0.1:{{.Ports.processor}}"`), ""},
		{"a port only in the upstream", portsTarget(`./svc`, `A: x`, `"http://127.0.0.1:{{.Port}}"`, `"http://127.0.0.1:{{.Ports.processor}}/v1"`), ""},
		{"bare .Ports", portsTarget(`./svc, "{{index .Ports \"a\"}}"`, `A: x`, `"http://127.0.0.1:{{.Port}}"`, "http://127.0.0.1:9090"),
			"2:28: process.command[1]: template uses .Ports without a name; write {{.Ports.NAME}}"},
		{"name with an underscore first", portsTarget(`./svc, "{{.Ports._a}}"`, `A: x`, `"http://127.0.0.1:{{.Port}}"`, "http://127.0.0.1:9090"),
			"process.command[1]: template uses .Ports._a; a port's NAME is letters, digits and _, starting with a letter"},
		{"upstream uses another value", portsTarget(`./svc`, `A: x`, `"http://127.0.0.1:{{.Port}}"`, `"http://127.0.0.1:{{.Port}}"`),
			"dependencies[0].upstream: template uses .Port; known values: .Ports"},
		{"upstream not a URL once rendered", portsTarget(`./svc`, `A: x`, `"http://127.0.0.1:{{.Port}}"`, `"127.0.0.1:{{.Ports.p}}"`),
			"dependencies[0].upstream: not a URL"},
		{"kind running", "kind: running\nservice: {url: 'http://127.0.0.1:8080'}\noperations: [{name: pay, path: /v1/payments}]\n" +
			"dependencies: [{name: processor, listen: '127.0.0.1:9091', upstream: 'http://127.0.0.1:{{.Ports.p}}'}]\neffects: {ledger: {dependency: processor}}\n",
			"dependencies[0].upstream: templates are not expanded here (only kind process chooses free ports, {{.Ports.NAME}})"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("spec.yaml", []byte(c.spec))
			var se *SpecError
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("Parse: %v; want a valid spec", err)
			case c.want == "":
			case !errors.As(err, &se):
				t.Fatalf("Parse: %v; want a *SpecError saying %q", err, c.want)
			case !strings.Contains(strings.Join(se.Lines(), "\n"), c.want):
				t.Errorf("problems:\n%s\nwant one saying %q", strings.Join(se.Lines(), "\n"), c.want)
			}
		})
	}
}

func TestDependency_RenderUpstream(t *testing.T) {
	t.Parallel()
	v := UpstreamValues{Ports: map[string]int{"processor": 40123}}
	cases := []struct {
		upstream, want, err string
	}{
		{"http://127.0.0.1:{{.Ports.processor}}/v1", "http://127.0.0.1:40123/v1", ""},
		{"http://127.0.0.1:9090", "http://127.0.0.1:9090", ""},
		{"", "", ""},
		{"http://127.0.0.1:{{.Ports.other}}", "", `map has no entry for key "other"`},
	}
	for _, c := range cases {
		got, err := Dependency{Name: "p", Upstream: c.upstream}.RenderUpstream(v)
		if got != c.want || (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("RenderUpstream(%q) = %q, %v; want %q, %q", c.upstream, got, err, c.want, c.err)
		}
	}
}

// TestTarget_tiers: a kind-process spec with tiers chooses a free port for
// each tier's URL, templates reach the hop proxies as {{.Tiers.NAME}}, and
// kinds running and compose get errors where their tiers cannot work.
func TestTarget_tiers(t *testing.T) {
	t.Parallel()
	ops := "operations: [{name: pay, path: /v1/payments}]\neffects: {ledger: {dependency: processor}}\n"
	base := ops + "dependencies: [{name: processor}]\n"
	cases := []struct {
		name, spec string
		want       string // "" = valid; else a line of the SpecError
		ports      []string
	}{
		{"process", "kind: process\nprocess: {command: [./run.sh, '{{.Port}}', '{{.Tiers.payments}}', '{{index .Tiers \"ledger-api\"}}', '{{.Ports.payments}}']}\n" + base +
			"tiers: [{name: nginx}, {name: payments, url: 'http://127.0.0.1:{{.Ports.payments}}'}, {name: ledger-api, url: 'http://127.0.0.1:{{.Ports.ledger}}'}]\n", "", []string{"ledger", "payments"}},
		{"running needs a hop address", "kind: running\nservice: {url: 'http://127.0.0.1:8080'}\n" + ops + "dependencies: [{name: processor, listen: '127.0.0.1:9091'}]\n" +
			"tiers: [{name: nginx}, {name: payments, url: 'http://127.0.0.1:8081'}]\n", "tiers[1].listen: required for kind running", nil},
		{"running: no templates in a tier's url", "kind: running\nservice: {url: 'http://127.0.0.1:8080'}\n" + ops + "dependencies: [{name: processor, listen: '127.0.0.1:9091'}]\n" +
			"tiers: [{name: nginx}, {name: payments, url: 'http://127.0.0.1:{{.Ports.p}}', listen: '127.0.0.1:9092'}]\n", "tiers[1].url: templates are not expanded here", nil},
		{"one tier", "kind: process\nprocess: {command: [./run.sh]}\n" + base + "tiers: [{name: nginx}]\n", "tiers: a chain of one tier is the service itself", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tg, err := Parse("spec.yaml", []byte(c.spec))
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("Parse: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("Parse: %v; want a problem %q", err, c.want)
			case c.want != "":
				return
			}
			if got := tg.PortNames(); !slices.Equal(got, c.ports) {
				t.Errorf("PortNames() = %q; want %q", got, c.ports)
			}
			u, err := tg.Tiers[1].RenderURL(UpstreamValues{Ports: map[string]int{"payments": 40001}})
			if err != nil || u != "http://127.0.0.1:40001" {
				t.Errorf("RenderURL = %q, %v", u, err)
			}
		})
	}
}
