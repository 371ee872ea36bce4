package compose

import (
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/targets"
)

// withKind makes kind compose known, as a program's table of kinds does.
var withKind = targets.WithKinds(launch.Kinds{targets.KindCompose: Kind()}.Specs())

const specHead = `kind: compose
service: {url: "http://127.0.0.1:8080"}
operations: [{name: pay, path: /pay}]
effects: {ledger: {dependency: processor}}
`

func TestDefaults(t *testing.T) {
	cases := []struct {
		name, spec string
		listen     []string
	}{
		{"bridge: proxies on every interface", "compose: {files: [c.yaml], service: gw}\ndependencies: [{name: processor}, {name: fraud, listen: '0.0.0.0:7000'}]\n",
			[]string{"0.0.0.0:0", "0.0.0.0:7000"}},
		{"host network: proxies on loopback", "compose: {files: [c.yaml], service: gw, dependency_host: 127.0.0.1}\ndependencies: [{name: processor}]\n",
			[]string{"127.0.0.1:0"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tgt, err := targets.Parse("target.yaml", []byte(specHead+c.spec), withKind)
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range c.listen {
				if got := tgt.Dependencies[i].Listen; got != want {
					t.Errorf("dependencies[%d].listen = %q; want %q", i, got, want)
				}
			}
			if tgt.Service.StartupTimeout != DefaultStartupTimeout || tgt.Compose.DependencyHost == "" {
				t.Errorf("startup_timeout %s, dependency_host %q; want %s and a host", tgt.Service.StartupTimeout, tgt.Compose.DependencyHost, DefaultStartupTimeout)
			}
			before := tgt.Dependencies
			tgt.Defaults(withKind)
			if &before[0] != &tgt.Dependencies[0] {
				t.Error("Defaults is not idempotent: it replaced the dependencies a second time")
			}
		})
	}
	t.Run("a written timeout stays", func(t *testing.T) {
		tgt, err := targets.Parse("", []byte(strings.Replace(specHead, `service: {url: "http://127.0.0.1:8080"}`, `service: {url: "http://127.0.0.1:8080", startup_timeout: 5s}`, 1)+
			"compose: {files: [c.yaml], service: gw}\ndependencies: [{name: processor}]\n"), withKind)
		if err != nil || tgt.Service.StartupTimeout != 5*time.Second {
			t.Errorf("Parse = %v, startup_timeout %v; want 5s", err, tgt)
		}
	})
}

func TestValidate_composeProblems(t *testing.T) {
	cases := []struct {
		name, spec, want string
	}{
		{"files and service required", "compose: {project: demo}\ndependencies: [{name: processor}]\n", "compose.files: required for kind compose"},
		{"service required", "compose: {files: [c.yaml]}\ndependencies: [{name: processor}]\n", "compose.service: required for kind compose"},
		{"a loopback proxy containers cannot reach", "compose: {files: [c.yaml], service: gw}\ndependencies: [{name: processor, listen: '127.0.0.1:9091'}]\n",
			"dependencies[0].listen: containers reach the proxy through host.docker.internal"},
		{"env template names an unknown dependency", "compose: {files: [c.yaml], service: gw, env: {URL: '{{.Dependencies.nope}}'}}\ndependencies: [{name: processor}]\n", `compose.env.URL`},
		{"project name docker refuses", "compose: {files: [c.yaml], service: gw, project: My_App}\ndependencies: [{name: processor}]\n", "compose.project: expected lowercase"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := targets.Parse("target.yaml", []byte(specHead+c.spec), withKind)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Parse = %v; want a problem containing %q", err, c.want)
			}
		})
	}
}

func TestValidate_composeNeedsServiceURL(t *testing.T) {
	spec := strings.Replace(specHead, "service: {url: \"http://127.0.0.1:8080\"}\n", "", 1) +
		"compose: {files: [c.yaml], service: gw}\ndependencies: [{name: processor}]\n"
	if _, err := targets.Parse("target.yaml", []byte(spec), withKind); err == nil || !strings.Contains(err.Error(), "service.url: required") {
		t.Errorf("Parse = %v; want service.url required", err)
	}
}

func TestContainerURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://[::]:41234":        "http://host.docker.internal:41234",
		"http://0.0.0.0:9091":      "http://host.docker.internal:9091",
		"http://127.0.0.1:9091/v1": "http://host.docker.internal:9091/v1",
	} {
		if got, err := containerURL(in, "host.docker.internal"); err != nil || got != want {
			t.Errorf("containerURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
