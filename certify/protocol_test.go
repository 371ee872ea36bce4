package certify

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/targets"
)

// TestDependencyProxy_protocol: a dependency declared h2c is reached over
// HTTP/2 with prior knowledge, so an upstream speaking nothing else
// answers; the default speaks HTTP/1.1 to it and gets the proxy's 502.
func TestDependencyProxy_protocol(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.Proto) }))
	var protos http.Protocols
	protos.SetUnencryptedHTTP2(true)
	srv.Config.Protocols = &protos
	srv.Start()
	t.Cleanup(srv.Close)
	for _, tt := range []struct {
		proto  targets.Protocol
		status int
		body   string
	}{
		{targets.ProtocolH2C, http.StatusOK, "HTTP/2.0"},
		{"", http.StatusBadGateway, ""},
	} {
		d := targets.Dependency{Name: "pay", Upstream: srv.URL, Protocol: tt.proto}
		p, err := dependencyProxy(d, "", 1, faults.NewJournal(), slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		resp, err := http.Get(p.URL() + "/")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.status || (tt.body != "" && string(b) != tt.body) {
			t.Errorf("protocol %q: %d %q, want %d %q", tt.proto, resp.StatusCode, b, tt.status, tt.body)
		}
	}
}

// TestFrontClient: the harness speaks h2c to a plain front proxy in front
// of an HTTP/2 service, and keeps its HTTP/1.1 default otherwise.
func TestFrontClient(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.Proto) }))
	var protos http.Protocols
	protos.SetHTTP1(true)
	protos.SetUnencryptedHTTP2(true)
	srv.Config.Protocols = &protos
	srv.Start()
	t.Cleanup(srv.Close)
	for _, tt := range []struct {
		proto targets.Protocol
		front string
		want  string // the protocol the request arrived in; "" = no client of its own
	}{
		{"", srv.URL, ""},
		{targets.ProtocolHTTP1, srv.URL, ""},
		{targets.ProtocolH2C, srv.URL, "HTTP/2.0"},
		{targets.ProtocolH2, srv.URL, "HTTP/2.0"},
		{targets.ProtocolH2C, "https://127.0.0.1:1", ""},
	} {
		c := frontClient(tt.proto, tt.front)
		if c == nil {
			if tt.want != "" {
				t.Errorf("frontClient(%q, %s) = nil; want a client", tt.proto, tt.front)
			}
			continue
		}
		if tt.want == "" {
			t.Errorf("frontClient(%q, %s) is a client of its own; want nil", tt.proto, tt.front)
			continue
		}
		resp, err := c.Get(tt.front)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != tt.want {
			t.Errorf("frontClient(%q) reached the front over %s; want %s", tt.proto, b, tt.want)
		}
	}
}
