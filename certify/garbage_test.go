package certify

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// TestRun_garbageTarget certifies targets that answer nonsense: one that
// does not speak HTTP is refused as unhealthy, saying what its health probe
// got; the others finish with failing or inconclusive checks, never a crash
// or a pass.
func TestRun_garbageTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("certifies three broken targets")
	}
	cases := []struct {
		name      string
		url       string
		unhealthy bool // Run must refuse with ErrUnhealthy rather than certify
	}{
		{"not http", rawServer(t, "SSH-2.0-OpenSSH_9.6\r\n"), true},
		{"bad headers", httpServer(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/healthz" {
				return
			}
			w.Header().Set("Retry-After", "soon-ish")
			w.Header().Set("RateLimit", "r=;;t")
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"type": 5`)
		}), false},
		{"200 to everything", httpServer(t, func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprint(w, "\x00\xff garbage")
		}), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := fmt.Sprintf("version: 1\nkind: running\nservice: {url: %q, health: /healthz, startup_timeout: 2s}\n"+
				"operations: [{name: pay, path: /v1/payments, body: '{\"amount\": {{.Amount}}}'}]\n"+
				"dependencies: [{name: processor, listen: %q}]\neffects: {ledger: {dependency: processor}}\n", c.url, freeListen(t))
			tg, err := targets.Parse("garbage.yaml", []byte(spec))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), Config{Target: tg, Suites: []string{"idempotency"}, Seed: 9})
			if c.unhealthy {
				if err != nil {
					t.Fatalf("Run: %v; want a report of the aborted run", err)
				}
				if res.Report.Aborted == "" || len(res.Report.Checks) != 0 {
					t.Errorf("report: aborted %q with %d checks; want an aborted run and no checks", res.Report.Aborted, len(res.Report.Checks))
				}
				assertUnhealthy(t, res.Err(), c.url)
				return
			}
			if err != nil {
				t.Fatalf("Run: %v", err)
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

// assertUnhealthy wants Run's refusal of a target that answers its health
// probe with no HTTP at all: unhealthy, at the health URL, a transport error
// and no status.
func assertUnhealthy(t *testing.T, err error, url string) {
	t.Helper()
	var ue *launch.UnhealthyError
	switch {
	case !errors.Is(err, ErrUnhealthy) || !errors.As(err, &ue):
		t.Fatalf("Run = %v; want ErrUnhealthy with a *launch.UnhealthyError", err)
	case ue.URL != url+"/healthz" || ue.LastStatus != 0 || ue.Attempts == 0 ||
		ue.LastErr == nil || !strings.Contains(ue.LastErr.Error(), "malformed HTTP response"):
		t.Errorf("unhealthy = %+v; want attempts at %s/healthz ending in a malformed HTTP response, no status", ue, url)
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

// freeListen is a free loopback address for a proxy's listen, below the
// ephemeral range so no port-0 listener of the run takes it first.
func freeListen(t *testing.T) string {
	addrs, err := launch.FreeAddrs(1)
	if err != nil {
		t.Fatal(err)
	}
	return addrs[0]
}
