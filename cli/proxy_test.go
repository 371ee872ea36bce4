package cli

import (
	"strings"
	"testing"
)

// TestProxyOptions_upstreamProtocol: --upstream-protocol takes http/1.1,
// h2c for an http upstream and h2 for an https one, and nothing else.
func TestProxyOptions_upstreamProtocol(t *testing.T) {
	t.Parallel()
	tests := []struct {
		upstream, proto, want string // want: "" = accepted, else part of the usage error
	}{
		{"http://127.0.0.1:9000", "http/1.1", ""},
		{"http://127.0.0.1:9000", "h2c", ""},
		{"https://127.0.0.1:9000", "h2", ""},
		{"", "h2c", "a stand-in has no upstream"},
		{"https://127.0.0.1:9000", "h2c", "does not go with a https:// upstream"},
		{"http://127.0.0.1:9000", "h2", "does not go with a http:// upstream"},
		{"http://127.0.0.1:9000", "http/3", `want http/1.1, h2c or h2`},
	}
	for _, tt := range tests {
		_, _, err := proxyOptions(proxyOpts{upstream: tt.upstream, upstreamProto: tt.proto, side: "front", journalCap: 10}, false)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s %s: %v", tt.upstream, tt.proto, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s %s: %v, want an error with %q", tt.upstream, tt.proto, err, tt.want)
		}
	}
}
