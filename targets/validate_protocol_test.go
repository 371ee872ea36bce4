package targets

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTarget_Validate_protocol: a protocol is known, agrees with its URL's
// scheme, and needs an upstream to speak to.
func TestTarget_Validate_protocol(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, service, dep string
		want               string // "" = valid; else part of the one problem
	}{
		{name: "default"},
		{name: "http/1.1 named", service: "url: http://127.0.0.1:9443, protocol: http/1.1"},
		{name: "h2c service", service: "url: http://127.0.0.1:9443, protocol: h2c"},
		{name: "h2 service", service: "url: https://127.0.0.1:9443, protocol: h2"},
		{name: "h2c upstream", dep: "upstream: http://127.0.0.1:9444, protocol: h2c"},
		{name: "h2 upstream", dep: "upstream: https://127.0.0.1:9444, protocol: h2"},
		{name: "h2 to plain service", service: "url: http://127.0.0.1:9443, protocol: h2", want: "service.protocol: h2 is HTTP/2 over TLS"},
		{name: "h2c to https upstream", dep: "upstream: https://127.0.0.1:9444, protocol: h2c", want: "dependencies[0].protocol: h2c is HTTP/2 in the clear"},
		{name: "unknown", dep: "upstream: http://127.0.0.1:9444, protocol: http/3", want: `unknown protocol "http/3"`},
		{name: "stand-in", dep: "protocol: h2c", want: "a stand-in answers itself"},
		{name: "gRPC health over h2c", service: "url: http://127.0.0.1:9443, protocol: h2c, health: /grpc.health.v1.Health/Check"},
		{name: "gRPC health over HTTP/1.1", service: "url: http://127.0.0.1:9443, health: /grpc.health.v1.Health/Check", want: "service.health: the gRPC health method needs HTTP/2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			service := "url: http://127.0.0.1:9443"
			if c.service != "" {
				service = c.service
			}
			dep := "name: pay"
			if c.dep != "" {
				dep += ", " + c.dep
			}
			spec := "kind: running\nservice: {" + service + "}\noperations: [{name: op, path: /x}]\n" +
				"dependencies: [{" + dep + ", listen: 127.0.0.1:9445}]\neffects: {ledger: {dependency: pay}}\n"
			_, err := Parse(filepath.Join(t.TempDir(), "spec.yaml"), []byte(spec))
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("Parse: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("Parse: %v, want a problem with %q", err, c.want)
			}
		})
	}
}
