package engine_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/internal/compose"
)

// TestServe_reapsKilledHelpersProject: a helper killed outright (SIGKILL)
// cannot tear its project down; the next helper to start removes that
// project's containers, network and volume before bringing its own up.
func TestServe_reapsKilledHelpersProject(t *testing.T) {
	requireDocker(t)
	tag, helper := image(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "compose.yaml")
	yaml := fmt.Sprintf(`services:
  processor:
    image: %s
    pull_policy: never
    network_mode: host
    command: [reference, processor, --addr, "127.0.0.1:0"]
    volumes: [data:/data]
volumes:
  data:
`, tag)
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir() // the helpers' LeaseDir lives in their TMPDIR
	const killed, next = "resilcheck-test-killed", "resilcheck-test-next"
	t.Cleanup(func() { removeByLabel(killed); removeByLabel(next) })

	first := startHelper(t, helper, tmp, killed, file)
	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = first.cmd.Wait()
	if got := projectContainers(t, killed); got == "" {
		t.Fatalf("project %s vanished with its helper; the test needs it left behind", killed)
	}

	second := startHelper(t, helper, tmp, next, file)
	assertGone(t, killed)
	if !strings.Contains(second.stderr.String(), "removed project "+killed) {
		t.Errorf("the second helper did not say it reaped %s; its stderr:\n%s", killed, second.stderr.String())
	}
	b, _ := json.Marshal(compose.Request{Op: compose.OpDown})
	if _, err := second.stdin.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
	if ev := second.next(t); ev.Event != compose.EventDown {
		t.Fatalf("answer to down: %+v", ev)
	}
	if err := second.cmd.Wait(); err != nil {
		t.Errorf("the second helper: %v\n%s", err, second.stderr.String())
	}
	assertGone(t, next)
	if left, _ := os.ReadDir(filepath.Join(tmp, fmt.Sprintf("resilcheck-compose-%d", os.Getuid()))); len(left) != 0 {
		t.Errorf("leases left behind: %v", left)
	}
}

// runningHelper is a helper process the test talks to.
type runningHelper struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	events *bufio.Scanner
	stderr *syncBuffer
}

// syncBuffer is a buffer the process writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
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

// startHelper starts the helper for project with TMPDIR=tmp and waits for
// its project to be up.
func startHelper(t *testing.T, helper, tmp, project, file string) *runningHelper {
	t.Helper()
	cmd := exec.Command(helper, "serve", "--project", project, "--service", "processor", "--file", file)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "XDG_RUNTIME_DIR=", "RESILCHECK_COMPOSE_LEASES=")
	h := &runningHelper{cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = h.stderr
	var err error
	if h.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	h.events = bufio.NewScanner(out)
	if ev := h.next(t); ev.Event != compose.EventUp {
		t.Fatalf("helper for %s: %+v\n%s", project, ev, h.stderr.String())
	}
	return h
}

// next reads the helper's next event, failing after two minutes.
func (h *runningHelper) next(t *testing.T) compose.Event {
	t.Helper()
	type result struct {
		ev  compose.Event
		err error
	}
	ch := make(chan result, 1)
	go func() {
		if !h.events.Scan() {
			ch <- result{err: fmt.Errorf("stdout ended: %v", h.events.Err())}
			return
		}
		var ev compose.Event
		ch <- result{ev, json.Unmarshal(h.events.Bytes(), &ev)}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("helper event: %v\n%s", r.err, h.stderr.String())
		}
		return r.ev
	case <-time.After(2 * time.Minute):
		t.Fatalf("no event from the helper in 2 minutes\n%s", h.stderr.String())
	}
	return compose.Event{}
}

// projectContainers lists the IDs of project's containers, running or not.
func projectContainers(t *testing.T, project string) string {
	t.Helper()
	return strings.TrimSpace(docker(t, "container", "ls", "-q", "--all", "--filter", "label=com.docker.compose.project="+project))
}

// removeByLabel removes what a failed test may have left of project.
func removeByLabel(project string) {
	label := "label=com.docker.compose.project=" + project
	for _, kind := range []string{"container", "network", "volume"} {
		args := []string{kind, "ls", "-q", "--filter", label}
		if kind == "container" {
			args = append(args, "--all")
		}
		out, _ := exec.Command("docker", args...).Output()
		if ids := strings.Fields(string(out)); len(ids) > 0 {
			rm := append([]string{kind, "rm"}, ids...)
			if kind == "container" {
				rm = append(rm, "--force", "--volumes")
			}
			_, _ = exec.Command("docker", rm...).CombinedOutput()
		}
	}
}
