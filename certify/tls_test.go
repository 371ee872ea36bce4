package certify

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
)

// tlsSpec is a running https service (%[1]s, verified with the CA file
// %[2]s) that calls its payments dependency over TLS at %[3]s.
const tlsSpec = `kind: running
service: {url: %[1]q, health: /healthz, startup_timeout: 2s, ca: %[2]q}
operations: [{name: pay, path: /pay}]
dependencies: [{name: payments, listen: %[3]q, tls: true}]
effects: {ledger: {dependency: payments}}
`

func TestNewRunTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plain, err := newRunTLS(parseSpec(t, fmt.Sprintf(tlsSpec, "https://127.0.0.1:1", filepath.Join(dir, "none.pem"), "127.0.0.1:2")))
	if !errors.Is(err, ErrConfig) || plain != nil {
		t.Fatalf("newRunTLS with a missing service.ca = %v, want ErrConfig", err)
	}
	rt, err := newRunTLS(parseSpec(t, "kind: running\nservice: {url: http://127.0.0.1:1}\noperations: [{name: pay, path: /pay}]\n"+
		"dependencies: [{name: payments, listen: 127.0.0.1:2}]\neffects: {ledger: {dependency: payments}}\n"))
	if err != nil || rt.ca != nil || rt.caFile() != "" {
		t.Fatalf("newRunTLS without tls = %+v, %v; want no authority", rt, err)
	}
	rt.close()
}

// TestPlaceTarget_tls: an https service is reached through a plain front
// proxy that verifies it with service.ca, and calls its dependency proxy
// over TLS, trusting the run's CA only; both sides are journaled.
func TestPlaceTarget_tls(t *testing.T) {
	t.Parallel()
	dep := freeListen(t)
	var depClient *http.Client // set once the run's authority exists, before the first request
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/pay" {
			return
		}
		resp, err := depClient.Post("https://"+dep+"/charges", "application/json", nil)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
	}))
	t.Cleanup(srv.Close)
	caFile := filepath.Join(t.TempDir(), "service-ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	tg := parseSpec(t, fmt.Sprintf(tlsSpec, srv.URL, caFile, dep))
	rt, err := newRunTLS(tg)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.close()
	bundle, err := os.ReadFile(rt.caFile())
	if err != nil || !bytes.HasPrefix(bundle, rt.ca.CertPEM()) {
		t.Fatalf("bundle %s: %v; want the run's CA first", rt.caFile(), err)
	}
	depClient = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: rt.ca.Pool()}}}
	j := faults.NewJournal()
	env, err := placeTarget(context.Background(), tg, Config{}.kinds(), 1, j, slog.New(slog.DiscardHandler), io.Discard, rt)
	if err != nil {
		t.Fatal(err)
	}
	defer env.close()
	resp, err := http.Post(env.front.URL()+"/pay", "application/json", nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("through the front: %v %v, want the stand-in's 200 relayed", resp, err)
	}
	resp.Body.Close()
	// The front's entry lands just after its answer; the bound is for a
	// loaded machine, the loop leaves as soon as it is there.
	deadline := time.Now().Add(10 * time.Second)
	for len(j.After(0, faults.BySide("front"))) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if f, d := j.After(0, faults.BySide("front")), j.After(0, faults.BySide("dependency")); len(f) != 1 || len(d) != 1 {
		t.Fatalf("journal: %d front, %d dependency entries; want 1 and 1", len(f), len(d))
	}
	got := rt.report(env)
	want := []reports.TLSHop{{Hop: "front", Upstream: "CA file " + caFile}, {Hop: "dependency:payments", Terminated: true, StandIn: true}}
	if got == nil || got.Authority != rt.ca.Fingerprint() || fmt.Sprint(got.Hops) != fmt.Sprint(want) {
		t.Errorf("report %+v, want hops %v under the run's CA", got, want)
	}
	env.close()
	rt.close()
	if _, err := os.Stat(rt.caFile()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the bundle outlived the run: %v", err)
	}
}

// TestPreflight_upstreamTLS: the preflight verifies an https upstream's
// certificate as its proxy will, with the dependency's upstream_ca or the
// system roots, so an untrusted one ends the run before any check.
func TestPreflight_upstreamTLS(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(srv.Close)
	caFile := filepath.Join(t.TempDir(), "upstream-ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, ca string
		ok       bool
	}{
		{"its CA", fmt.Sprintf(", upstream_ca: %q", caFile), true},
		{"system roots", "", false},
	} {
		tg := parseSpec(t, fmt.Sprintf("kind: running\nservice: {url: http://127.0.0.1:1}\noperations: [{name: pay, path: /pay}]\n"+
			"dependencies: [{name: payments, listen: 127.0.0.1:2, upstream: %q%s}]\neffects: {ledger: {dependency: payments}}\n", srv.URL, tc.ca))
		rt, err := newRunTLS(tg)
		if err != nil {
			t.Fatal(err)
		}
		env := &environment{spec: tg, tls: rt, upstream: []realUpstream{{name: "payments", url: srv.URL}}}
		err = env.preflight(context.Background())
		var ue *UnreachableError
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s: preflight = %v, want the handshake verified", tc.name, err)
		case !tc.ok && (!errors.As(err, &ue) || !strings.Contains(err.Error(), "TLS")):
			t.Errorf("%s: preflight = %v, want the untrusted upstream named", tc.name, err)
		}
		rt.close()
	}
}
