package launch

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/targets"
)

func runningTarget(t *testing.T, url string, timeout time.Duration) *targets.Target {
	t.Helper()
	spec := fmt.Sprintf(`service: {url: %q, startup_timeout: %s}
operations: [{name: op, path: /x}]
dependencies: [{name: d, listen: "127.0.0.1:9091"}]
effects: {ledger: {dependency: d}}
`, url, timeout)
	tg, err := targets.Parse("", []byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func TestRunningLauncher_Launch_closedPort(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close()
	const timeout = 300 * time.Millisecond
	start := time.Now()
	_, err = (&RunningLauncher{Target: runningTarget(t, url, timeout)}).Launch(t.Context(), Env{})
	elapsed := time.Since(start)
	var ue *UnhealthyError
	if !errors.Is(err, ErrUnhealthy) || !errors.As(err, &ue) {
		t.Fatalf("Launch() = %v; want an *UnhealthyError", err)
	}
	if ue.Attempts < 2 || ue.URL != url+"/healthz" || !strings.Contains(err.Error(), "connection refused") ||
		!strings.Contains(err.Error(), url+"/healthz") {
		t.Errorf("Launch() = %v (attempts %d); want the URL, several attempts and the last error", err, ue.Attempts)
	}
	// One-sided: it waited the timeout out; the upper bound only guards against a hang.
	if elapsed < timeout-10*time.Millisecond || elapsed > 20*time.Second {
		t.Errorf("Launch() took %s; want about %s", elapsed, timeout)
	}
}

func TestRunningLauncher_Launch_healthy(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) < 3 || r.URL.Path != "/healthz" { // comes up on the third probe
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	r, err := (&RunningLauncher{Target: runningTarget(t, srv.URL, 10*time.Second)}).Launch(t.Context(), Env{})
	if err != nil || r.URL != srv.URL {
		t.Fatalf("Launch() = %+v, %v", r, err)
	}
	if err := r.Stop(t.Context()); err != nil {
		t.Errorf("Stop() = %v", err)
	}
}
