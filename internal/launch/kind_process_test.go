package launch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/targets"
)

// processTarget builds a kind-process target running this test binary as child mode.
func processTarget(t *testing.T, mode, extra string) *targets.Target {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	spec := fmt.Sprintf(`kind: process
service: {startup_timeout: 20s}
process:
  command: [%q, "{{.Port}}"]
  env: {%s: %s, CHILD_DIR: "{{.TempDir}}", DEP_URL: "{{.Dependencies.processor}}"}
  stop_grace: 2s
operations: [{name: op, path: /x}]
dependencies: [{name: processor}]
effects: {ledger: {dependency: processor}}
%s`, exe, childEnv, mode, extra)
	tg, err := targets.Parse(filepath.Join(t.TempDir(), "spec.yaml"), []byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// syncBuffer is a log writer safe for the launcher's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func readPID(t *testing.T, dir, name string) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(filepath.Join(dir, name+".pid")); err == nil && len(b) > 0 {
			pid, _ := strconv.Atoi(string(b))
			return pid
		}
	}
	t.Fatalf("no %s.pid written", name)
	return 0
}

// assertGone waits (bounded) for pid to disappear; a zombie counts as gone
// since it runs nothing and only its parent or init can reap it.
func assertGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
				return
			}
		}
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("process %d still running after Stop", pid)
}

func launch(t *testing.T, tg *targets.Target, log io.Writer) (*Running, Env, error) {
	t.Helper()
	l, err := Kinds{targets.KindProcess: ProcessKind()}.NewLauncher(tg)
	if err != nil {
		t.Fatal(err)
	}
	env := Env{TempDir: t.TempDir(), Log: log, Dependencies: map[string]string{"processor": "http://127.0.0.1:9999"}}
	r, err := l.Launch(t.Context(), env)
	return r, env, err
}

func TestProcessLauncher_Launch(t *testing.T) {
	t.Parallel()
	var log syncBuffer
	r, env, err := launch(t, processTarget(t, "serve", ""), &log)
	if err != nil {
		t.Fatal(err)
	}
	pid := readPID(t, env.TempDir, "child")
	resp, err := http.Get(r.URL + "/dep")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "http://127.0.0.1:9999" || !strings.HasPrefix(r.URL, "http://127.0.0.1:") {
		t.Errorf("URL %s, /dep = %q; want the rendered dependency URL", r.URL, body)
	}
	if err := r.Stop(context.Background()); err != nil {
		t.Errorf("Stop() = %v", err)
	}
	assertGone(t, pid)
	if !strings.Contains(log.String(), "child listening on") {
		t.Errorf("log = %q; want the child's output", log.String())
	}
	if err := r.Stop(context.Background()); err != nil {
		t.Errorf("second Stop() = %v", err)
	}
}

func TestProcessLauncher_Launch_exitsAtOnce(t *testing.T) {
	t.Parallel()
	_, _, err := launch(t, processTarget(t, "exit", ""), nil)
	var ee *ExitedError
	if !errors.As(err, &ee) || !errors.Is(err, ErrUnhealthy) {
		t.Fatalf("Launch() = %v; want an *ExitedError matching ErrUnhealthy", err)
	}
	for _, want := range []string{"exited before becoming healthy: exit status 3", "boom: no config at /etc/payments.toml"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Launch() error %q lacks %q", err, want)
		}
	}
}

func TestProcessLauncher_Launch_notStarted(t *testing.T) {
	t.Parallel()
	tg := processTarget(t, "serve", "")
	tg.Process.Command = []string{"./no-such-binary"}
	_, _, err := launch(t, tg, nil)
	if !errors.Is(err, ErrUnhealthy) || !strings.Contains(err.Error(), "no-such-binary") {
		t.Errorf("Launch() = %v; want a not-started error naming the binary", err)
	}
}

func TestProcessLauncher_Stop_killsGrandchildren(t *testing.T) {
	t.Parallel()
	r, env, err := launch(t, processTarget(t, "spawn", ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	child, grandchild := readPID(t, env.TempDir, "child"), readPID(t, env.TempDir, "grandchild")
	if err := r.Stop(context.Background()); err != nil {
		t.Errorf("Stop() = %v", err)
	}
	assertGone(t, child)
	assertGone(t, grandchild)
}

func TestProcessLauncher_Stop_ignoredSIGTERM(t *testing.T) {
	t.Parallel()
	tg := processTarget(t, "stubborn", "")
	tg.Process.StopGrace = 200 * time.Millisecond
	r, env, err := launch(t, tg, nil)
	if err != nil {
		t.Fatal(err)
	}
	pid := readPID(t, env.TempDir, "child")
	start := time.Now()
	if err := r.Stop(context.Background()); err != nil {
		t.Errorf("Stop() = %v", err)
	}
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("Stop() took %s; want the 200ms grace before SIGKILL", d)
	}
	assertGone(t, pid)
}

func TestProcessLauncher_Launch_unhealthy(t *testing.T) {
	t.Parallel()
	tg := processTarget(t, "unhealthy", "")
	// Long enough for a re-executed test binary to start on a busy machine:
	// the test needs at least one answered probe to see the 503 (an attempt
	// cut by the deadline afterwards no longer hides it).
	tg.Service.StartupTimeout = 5 * time.Second
	var log syncBuffer
	_, env, err := launch(t, tg, &log)
	var ue *UnhealthyError
	if !errors.As(err, &ue) || ue.LastStatus != http.StatusServiceUnavailable {
		t.Fatalf("Launch() = %v; want an *UnhealthyError with status 503", err)
	}
	if !strings.Contains(err.Error(), "last status: 503") || !strings.Contains(err.Error(), "child listening") {
		t.Errorf("Launch() error %q lacks the status or the output", err)
	}
	assertGone(t, readPID(t, env.TempDir, "child"))
}

func TestProcessLauncher_Launch_ctxCancelStops(t *testing.T) {
	t.Parallel()
	l := &ProcessLauncher{Target: processTarget(t, "serve", "")}
	ctx, cancel := context.WithCancel(t.Context())
	env := Env{TempDir: t.TempDir(), Dependencies: map[string]string{"processor": "http://127.0.0.1:9999"}}
	r, err := l.Launch(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	pid := readPID(t, env.TempDir, "child")
	cancel()
	assertGone(t, pid)
	_ = r.Stop(context.Background())
}

// TestProcessLauncher_Launch_ports: every {{.Ports.NAME}} renders to a free
// port, the same in argv and env, distinct from the others and from
// {{.Port}}; a port the harness chose (Env.Ports) is kept.
func TestProcessLauncher_Launch_ports(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	spec := fmt.Sprintf(`kind: process
service: {url: "http://127.0.0.1:{{.Port}}", startup_timeout: 20s}
process:
  command: [%q, "{{.Port}}", "{{.Ports.b}}"]
  env: {%s: serve, CHILD_DIR: "{{.TempDir}}", DEP_URL: "{{.Port}} {{.Ports.a}} {{.Ports.b}}"}
operations: [{name: op, path: /x}]
dependencies: [{name: processor, upstream: "http://127.0.0.1:{{.Ports.a}}"}]
effects: {ledger: {dependency: processor}}
`, exe, childEnv)
	tg, err := targets.Parse(filepath.Join(t.TempDir(), "spec.yaml"), []byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	chosen, err := FreePorts([]string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		ports map[string]int
	}{
		{"none chosen", nil},
		{"a chosen", chosen},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			l := &ProcessLauncher{Target: tg}
			r, err := l.Launch(t.Context(), Env{TempDir: t.TempDir(), Ports: c.ports, Dependencies: map[string]string{"processor": "http://127.0.0.1:9999"}})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Stop(context.Background())
			resp, err := http.Get(r.URL + "/dep")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var port, a, b int
			if _, err := fmt.Sscan(string(body), &port, &a, &b); err != nil {
				t.Fatalf("/dep = %q: %v", body, err)
			}
			switch {
			case r.URL != fmt.Sprintf("http://127.0.0.1:%d", port):
				t.Errorf("URL %s; want the port the child listens on, %d", r.URL, port)
			case port == a || port == b || a == b || a == 0 || b == 0:
				t.Errorf("port %d, a %d, b %d; want three distinct ports", port, a, b)
			case c.ports != nil && a != c.ports["a"]:
				t.Errorf("a = %d; want the port the harness chose, %d", a, c.ports["a"])
			}
			if got := childArg(t, r.URL); got != strconv.Itoa(b) {
				t.Errorf("argv[2] = %q; want b's port %d, as in env", got, b)
			}
		})
	}
}

// childArg returns the second argument the child at url was started with.
func childArg(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url + "/args")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	args := strings.Fields(string(body))
	if len(args) < 2 {
		t.Fatalf("/args = %q; want two arguments", body)
	}
	return args[1]
}
