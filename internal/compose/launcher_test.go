package compose

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/targets"
)

// fakeHelperEnv makes the test binary play the helper (see TestMain), in
// the mode it names, so the launcher's side of the protocol is tested
// without Docker; compose/engine's tests run the real helper.
const fakeHelperEnv = "RESILCHECK_FAKE_COMPOSE_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeHelperEnv); mode != "" {
		os.Exit(fakeHelper(mode))
	}
	os.Exit(m.Run())
}

// fakeHelper answers as resilcheck-compose would. Mode up brings nothing up
// but says so, answers logs with its arguments and PROCESSOR_URL, and exits
// at down; fail reports a project that did not come up; crash exits at once.
func fakeHelper(mode string) int {
	enc := json.NewEncoder(os.Stdout)
	logs := []launch.Log{{Name: "gateway-1", Output: strings.Join(os.Args[1:], " ") + "\nPROCESSOR_URL=" + os.Getenv("PROCESSOR_URL") + "\n"}}
	switch mode {
	case "fail":
		_ = enc.Encode(Event{Event: EventError, Error: "container gateway-1 exited (2)", Logs: logs})
		return 1
	case "crash":
		fmt.Fprintln(os.Stderr, "boom: no engine")
		return 3
	}
	_ = enc.Encode(Event{Event: EventUp, Services: []string{"gateway", "processor"}})
	dec := json.NewDecoder(os.Stdin)
	for {
		var r Request
		if err := dec.Decode(&r); err != nil || r.Op == OpDown {
			_ = enc.Encode(Event{Event: EventDown})
			return 0
		}
		_ = enc.Encode(Event{Event: EventLogs, Logs: logs})
	}
}

// launcher returns a launcher of a compose spec whose service is healthy
// when healthy says so, with the test binary as its helper in mode.
func launcher(t *testing.T, mode string, healthy bool) (*Launcher, *targets.Target) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !healthy {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(srv.Close)
	spec := fmt.Sprintf(`kind: compose
compose:
  files: [compose.yaml]
  service: gateway
  env: {PROCESSOR_URL: "{{.Dependencies.processor}}/v1"}
service: {url: %s, startup_timeout: 2s}
operations: [{name: pay, path: /pay}]
dependencies: [{name: processor}]
effects: {ledger: {dependency: processor}}
`, srv.URL)
	tgt, err := targets.Parse("target.yaml", []byte(spec), withKind)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(fakeHelperEnv, mode)
	return &Launcher{Target: tgt, helper: exe}, tgt
}

func TestLauncher_Launch(t *testing.T) {
	l, tgt := launcher(t, "up", true)
	env := launch.Env{Dependencies: map[string]string{"processor": "http://[::]:41234"}}
	r, err := l.Launch(t.Context(), env)
	if err != nil {
		t.Fatal(err)
	}
	if r.URL != tgt.Service.URL {
		t.Errorf("URL = %s; want service.url %s", r.URL, tgt.Service.URL)
	}
	logs, err := r.LogsFunc(t.Context())
	if err != nil || len(logs) != 1 {
		t.Fatalf("LogsFunc() = %v, %v; want the helper's one log", logs, err)
	}
	out := logs[0].Output
	for _, want := range []string{
		"PROCESSOR_URL=http://host.docker.internal:41234/v1",           // the proxy as containers reach it
		"serve --project resilcheck-", "--service gateway", "--file /", // an absolute compose file
	} {
		if !strings.Contains(out, want) {
			t.Errorf("helper saw %q; want %q in it", out, want)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if err := r.Stop(ctx); err != nil {
		t.Errorf("Stop() = %v", err)
	}
}

func TestLauncher_LaunchFails(t *testing.T) {
	cases := []struct {
		mode    string
		healthy bool
		want    string // in the error
		logs    bool   // the error carries the helper's logs
	}{
		{"fail", true, "did not come up: container gateway-1 exited (2)", true},
		{"crash", true, "boom: no engine", false},
		{"up", false, "last status: 503", true},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s,healthy=%v", c.mode, c.healthy), func(t *testing.T) {
			l, _ := launcher(t, c.mode, c.healthy)
			_, err := l.Launch(t.Context(), launch.Env{Dependencies: map[string]string{"processor": "http://127.0.0.1:1"}})
			if !errors.Is(err, launch.ErrUnhealthy) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Launch() = %v; want an unhealthy error with %q", err, c.want)
			}
			var le *launch.LogsError
			if got := errors.As(err, &le) && slices.ContainsFunc(le.Logs, func(l launch.Log) bool { return l.Name == "gateway-1" }); got != c.logs {
				t.Errorf("logs attached = %v; want %v (%v)", got, c.logs, err)
			}
			if c.logs && !strings.Contains(launch.LastOutput(err), "== gateway-1 ==") {
				t.Errorf("LastOutput = %q; want gateway-1's log under its name", launch.LastOutput(err))
			}
		})
	}
}

func TestNewLauncher_noHelper(t *testing.T) {
	t.Setenv(HelperEnv, "")
	t.Setenv("PATH", t.TempDir())
	tgt := &targets.Target{Kind: targets.KindCompose}
	if _, err := newLauncher(tgt); err == nil || !strings.Contains(err.Error(), "go -C compose/engine build") {
		t.Errorf("newLauncher() = %v; want the error saying how to build the helper", err)
	}
}
