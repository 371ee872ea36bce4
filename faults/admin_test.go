package faults

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func adminDo(t *testing.T, srv *httptest.Server, method, path, body string, hdr ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestAdmin_Rules(t *testing.T) {
	t.Parallel()
	p := startProxy(t)
	srv := httptest.NewServer(NewAdmin(p))
	defer srv.Close()
	rule := `{"name":"busy","match":{"method":"POST","first":1},"fault":{"type":"abort","status":429,"headers":{"Retry-After":"1"}}}`
	tests := []struct {
		method, path, body string
		want               int
		contains           string
	}{
		{"POST", "/rules", rule, 201, `"busy"`},
		{"POST", "/rules", rule, 409, "duplicate"},
		{"POST", "/rules", `{"name":"x","fault":{"type":"abort","stauts":1}}`, 400, "fault.stauts: unknown attribute"},
		{"GET", "/rules", "", 200, `"Retry-After": "1"`},
		{"PUT", "/rules", "[" + rule + `,{"name":"slow","fault":{"type":"delay","duration":"10ms"}}]`, 200, `"10ms"`},
		{"DELETE", "/rules/slow", "", 204, ""},
		{"DELETE", "/rules/slow", "", 404, "no rule"},
		{"GET", "/status", "", 200, `"seed": 1`},
	}
	for _, tt := range tests {
		code, body := adminDo(t, srv, tt.method, tt.path, tt.body)
		if code != tt.want || !strings.Contains(body, tt.contains) {
			t.Errorf("%s %s = %d %s; want %d containing %q", tt.method, tt.path, code, body, tt.want, tt.contains)
		}
	}
	resp, _, _ := do(t, client(), "POST", p.URL()+"/", "", "Idempotency-Key", "k-7")
	if resp.StatusCode != 429 {
		t.Fatalf("rule added over the API not applied: %d", resp.StatusCode)
	}
	do(t, client(), "GET", p.URL()+"/", "")
	await(t, p, 2)
	code, body := adminDo(t, srv, "GET", "/journal?header=Idempotency-Key:k-7", "")
	es, err := ReadJSONLines(strings.NewReader(body))
	if code != 200 || err != nil || len(es) != 1 || es[0].Status != 429 {
		t.Fatalf("journal %d %q %v", code, body, err)
	}
	if _, body := adminDo(t, srv, "GET", "/journal?after=1", ""); strings.Count(body, "\n") != 1 {
		t.Fatalf("after=1 gave %q", body)
	}
	_, body = adminDo(t, srv, "GET", "/metrics", "")
	for _, want := range []string{
		`resilcheck_proxy_faults_injected_total{fault="abort",rule="busy",side="front"} 1`,
		`resilcheck_proxy_exchanges_total{outcome="faulted",side="front",status="429"} 1`,
		`resilcheck_proxy_exchanges_total{outcome="passed",side="front",status="200"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s:\n%s", want, body)
		}
	}
	if code, _ := adminDo(t, srv, "POST", "/reset", ""); code != 204 || len(p.Rules().List()) != 0 {
		t.Fatal("reset")
	}
}

func TestAdmin_Guard(t *testing.T) {
	t.Parallel()
	p := startProxy(t)
	srv := httptest.NewServer(NewAdmin(p, WithToken("s3cret")))
	defer srv.Close()
	if code, _ := adminDo(t, srv, "POST", "/reset", ""); code != 401 {
		t.Fatalf("no token: %d", code)
	}
	if code, _ := adminDo(t, srv, "POST", "/reset", "", "Authorization", "Bearer s3cret"); code != 204 {
		t.Fatalf("token: %d", code)
	}
	if code, _ := adminDo(t, srv, "POST", "/reset", "", "Authorization", "Bearer s3cret", "Origin", "http://evil"); code != 403 {
		t.Fatalf("browser: %d", code)
	}
}

func TestListenAdmin(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{":8474", "0.0.0.0:0", "[::]:0", "192.0.2.1:0", "example.com:0"} {
		if _, err := ListenAdmin(addr, ""); !errors.Is(err, ErrAdminExposed) {
			t.Errorf("ListenAdmin(%q) = %v; want ErrAdminExposed", addr, err)
		}
	}
	l, err := ListenAdmin("127.0.0.1:0", "")
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
}

// TestAdmin_Host refuses a Host naming anything but the bound address or a
// loopback name, as a page that rebound its own name to 127.0.0.1 would send.
func TestAdmin_Host(t *testing.T) {
	t.Parallel()
	p := startProxy(t)
	srv := httptest.NewServer(NewAdmin(p))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	tests := []struct {
		host string
		want int
	}{
		{srv.Listener.Addr().String(), 200},
		{"127.0.0.1", 200},
		{"localhost:" + port, 200},
		{"LocalHost", 200},
		{"[::1]:" + port, 200},
		{"[::1]", 200},
		{"evil.example:" + port, 421},
		{"evil.example", 421},
		{"localhost.evil.example", 421},
		{"127.0.0.1.nip.io:" + port, 421},
		{"localhost:1", 200}, // any port: a page cannot rebind a loopback name
	}
	for _, tt := range tests {
		req, _ := http.NewRequest("GET", srv.URL+"/journal", nil)
		req.Host = tt.host
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("Host %q: %d; want %d", tt.host, resp.StatusCode, tt.want)
		}
	}
	// With a token, a page cannot rebind its way in (it has no token to
	// send), and an operator may reach an exposed API by any name.
	tok := httptest.NewServer(NewAdmin(p, WithToken("s3cret")))
	defer tok.Close()
	req, _ := http.NewRequest("GET", tok.URL+"/status", nil)
	req.Host = "resilcheck-admin.internal:8474"
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err := tok.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("a DNS name with the token: %d; want 200", resp.StatusCode)
	}
}
