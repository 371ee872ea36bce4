package certify

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// TestRun_garbageTarget certifies targets that answer nonsense: the run must
// finish with failing or inconclusive checks, never a crash or a pass.
func TestRun_garbageTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("certifies three broken targets")
	}
	servers := map[string]string{
		"not http": rawServer(t, "SSH-2.0-OpenSSH_9.6\r\n"),
		"bad headers": httpServer(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/healthz" {
				return
			}
			w.Header().Set("Retry-After", "soon-ish")
			w.Header().Set("RateLimit", "r=;;t")
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"type": 5`)
		}),
		"200 to everything": httpServer(t, func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprint(w, "\x00\xff garbage")
		}),
	}
	for name, url := range servers {
		t.Run(name, func(t *testing.T) {
			spec := fmt.Sprintf("version: 1\nkind: running\nservice: {url: %q, health: /healthz, startup_timeout: 2s}\n"+
				"operations: [{name: pay, path: /v1/payments, body: '{\"amount\": {{.Amount}}}'}]\n"+
				"dependencies: [{name: processor, listen: %q}]\neffects: {ledger: {dependency: processor}}\n", url, freeListen(t))
			tg, err := targets.Parse("garbage.yaml", []byte(spec))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), Config{Target: tg, Suites: []string{"idempotency"}, Seed: 9})
			if err != nil {
				t.Logf("Run: %v (a refusal to certify is acceptable)", err)
				return
			}
			for _, c := range res.Report.Checks {
				t.Logf("%s %s %s: %s%s", c.ID, c.Status, c.Duration, c.Observed, c.Reason)
			}
			if res.Report.Verdict == reports.VerdictPass {
				t.Errorf("a garbage target passed certification")
			}
		})
	}
}

func httpServer(t *testing.T, h http.HandlerFunc) string {
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s.URL
}

// rawServer answers every connection with banner and closes it.
func rawServer(t *testing.T, banner string) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_, _ = bufio.NewReader(c).Peek(1)
			_, _ = c.Write([]byte(banner))
			c.Close()
		}
	}()
	return "http://" + l.Addr().String()
}

func freeListen(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
