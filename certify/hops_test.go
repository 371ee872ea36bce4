package certify

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/resilcheck/resilcheck/reports"
)

// TestAddHop_protocol certifies a gateway that calls the payments tier
// over h2c, and a payments tier that serves h2c alone: with the tier's
// protocol h2c the hop proxy between them speaks HTTP/2 to it and IK-03
// passes through both; left out, the hop speaks HTTP/1.1, which the tier
// refuses: the gateway answers 502 and the run ends unhealthy.
func TestAddHop_protocol(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		protocol string
		pass     bool
	}{{"h2c", true}, {"", false}} {
		t.Run("protocol="+tt.protocol, func(t *testing.T) {
			t.Parallel()
			ledger, hop := freeListen(t), freeListen(t)
			payments := h2cOnlyServer(t, func(w http.ResponseWriter, r *http.Request) {
				req, _ := http.NewRequestWithContext(r.Context(), http.MethodPost, "http://"+ledger+"/entries", nil)
				req.Header.Set("Idempotency-Key", r.Header.Get("Idempotency-Key"))
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					http.Error(w, err.Error(), http.StatusBadGateway)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				w.WriteHeader(http.StatusCreated)
				fmt.Fprintf(w, `{"proto": %q}`, r.Proto)
			})
			gateway := httpServer(t, h2cGateway("http://"+hop).ServeHTTP)
			spec := fmt.Sprintf("version: 1\nkind: running\nservice: {url: %q, startup_timeout: 2s, front: proxy}\n"+
				"operations: [{name: pay, path: /v1/payments, body: '{\"amount\": {{.Amount}}}'}]\n"+
				"dependencies: [{name: ledger, listen: %q}]\neffects: {ledger: {dependency: ledger}}\n"+
				"tiers: [{name: gateway}, {name: payments, url: %q, listen: %q, protocol: %q}]\n",
				gateway, ledger, payments, hop, tt.protocol)
			res, err := Run(context.Background(), Config{Target: parseSpec(t, spec), Checks: []string{"IK-03"}, Seed: 5})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if !tt.pass && len(res.Report.Checks) == 0 && strings.Contains(res.Report.Aborted, "last status: 502") {
				// The health route crosses the hop too: refused there
				// first, the run ends unhealthy before IK-03.
				t.Logf("aborted: %s", res.Report.Aborted)
				return
			}
			if len(res.Report.Checks) != 1 {
				t.Fatalf("%d checks (aborted %q); want IK-03", len(res.Report.Checks), res.Report.Aborted)
			}
			ch := res.Report.Checks[0]
			if got := ch.Status == reports.StatusPass; got != tt.pass {
				t.Fatalf("IK-03 %s: %s %s; want pass %v", ch.Status, ch.Observed, ch.Reason, tt.pass)
			}
			t.Logf("IK-03 %s: %s", ch.Status, ch.Observed)
		})
	}
}

// h2cOnlyServer serves h on a loopback port over h2c with prior knowledge
// alone, as a gRPC server does: an HTTP/1.1 request gets no answer.
func h2cOnlyServer(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var ps http.Protocols
	ps.SetUnencryptedHTTP2(true)
	s := &http.Server{Handler: h, Protocols: &ps}
	go s.Serve(l)
	t.Cleanup(func() { s.Close() })
	return "http://" + l.Addr().String()
}

// h2cGateway relays every request to upstream over h2c, as a gateway in
// front of a gRPC service does.
func h2cGateway(upstream string) *httputil.ReverseProxy {
	u, _ := url.Parse(upstream)
	var ps http.Protocols
	ps.SetUnencryptedHTTP2(true)
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.Transport = &http.Transport{Protocols: &ps}
	return rp
}
