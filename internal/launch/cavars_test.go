package launch

import (
	"maps"
	"testing"
)

func TestWithCAVariables(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		vars   map[string]string
		caFile string
		want   map[string]string
	}{
		{"no CA", map[string]string{"A": "1"}, "", map[string]string{"A": "1"}},
		{"all four", nil, "/tmp/b.pem", map[string]string{"SSL_CERT_FILE": "/tmp/b.pem", "NODE_EXTRA_CA_CERTS": "/tmp/b.pem", "REQUESTS_CA_BUNDLE": "/tmp/b.pem", "CURL_CA_BUNDLE": "/tmp/b.pem"}},
		{"the spec's own stands", map[string]string{"REQUESTS_CA_BUNDLE": "mine.pem"}, "/tmp/b.pem",
			map[string]string{"SSL_CERT_FILE": "/tmp/b.pem", "NODE_EXTRA_CA_CERTS": "/tmp/b.pem", "REQUESTS_CA_BUNDLE": "mine.pem", "CURL_CA_BUNDLE": "/tmp/b.pem"}},
	}
	for _, tt := range tests {
		before := maps.Clone(tt.vars)
		if got := withCAVariables(tt.vars, tt.caFile); !maps.Equal(got, tt.want) {
			t.Errorf("%s: withCAVariables(%v, %q) = %v, want %v", tt.name, tt.vars, tt.caFile, got, tt.want)
		}
		if !maps.Equal(before, tt.vars) {
			t.Errorf("%s: withCAVariables changed its argument", tt.name)
		}
	}
}
