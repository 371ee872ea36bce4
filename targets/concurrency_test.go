package targets

import (
	"strings"
	"testing"
)

func TestTarget_Validate_concurrency(t *testing.T) {
	t.Parallel()
	const process = "kind: process\nprocess: {command: [sh, -c, 'exit 0']}\noperations: [{name: pay, method: POST, path: /pay}]\neffects: {probe: {url: '/count?key={{.Key}}', count: '$.count'}}\n"
	for _, c := range []struct {
		name, spec, want string
	}{
		{"process, three copies", process + "concurrency: 3\n", ""},
		{"running, one", "service: {url: http://127.0.0.1:1}\noperations: [{name: pay, method: POST, path: /pay}]\neffects: {probe: {url: '/count?key={{.Key}}', count: '$.count'}}\nconcurrency: 1\n", ""},
		{"running, two", "service: {url: http://127.0.0.1:1}\noperations: [{name: pay, method: POST, path: /pay}]\neffects: {probe: {url: '/count?key={{.Key}}', count: '$.count'}}\nconcurrency: 2\n", "only kinds process and reference"},
		{"negative", process + "concurrency: -1\n", "must be 0 or more"},
		{"too many", process + "concurrency: 17\n", "at most 16 copies"},
		{"fixed proxy address", process + "dependencies: [{name: p, listen: '127.0.0.1:9091', stand_in: {status: 201}}]\nconcurrency: 2\n", "use port 0"},
		{"fixed tier address", strings.Replace(process, "'exit 0'", "'exit 0 {{.Tiers.b}}'", 1) + "tiers: [{name: a}, {name: b, url: 'http://127.0.0.1:9092'}]\nconcurrency: 2\n", "would make 2 copies share the tier b"},
		{"tier on a named port", strings.Replace(process, "'exit 0'", "'exit 0 {{.Tiers.b}}'", 1) + "tiers: [{name: a}, {name: b, url: 'http://127.0.0.1:{{.Ports.b}}'}]\nconcurrency: 2\n", ""},
		{"fixed hop address", strings.Replace(process, "'exit 0'", "'exit 0 {{.Tiers.b}}'", 1) + "tiers: [{name: a}, {name: b, url: 'http://127.0.0.1:{{.Ports.b}}', listen: '127.0.0.1:9093'}]\nconcurrency: 2\n", "copies' hop proxies"},
	} {
		_, err := Parse(c.name+".yaml", []byte(c.spec))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v; want one saying %q", c.name, err, c.want)
		}
	}
}
