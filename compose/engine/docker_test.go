package engine_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// requireDocker skips the test when no Docker engine answers, saying so,
// unless RESILCHECK_REQUIRE_COMPOSE=1 makes that a failure (.ci/run and
// CI set it after starting an engine).
func requireDocker(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err == nil {
		_, err = cli.Ping(ctx, client.PingOptions{})
		_ = cli.Close()
	}
	if err == nil {
		if _, err = exec.LookPath("docker"); err != nil {
			err = fmt.Errorf("the docker CLI, which builds the test image: %w", err)
		}
	}
	if err == nil {
		return
	}
	if os.Getenv("RESILCHECK_REQUIRE_COMPOSE") == "1" {
		t.Fatalf("RESILCHECK_REQUIRE_COMPOSE=1 but no Docker engine: %v", err)
	}
	t.Skipf("SKIP: no Docker engine answers (%v); the compose tests need one (.ci/run installs and starts it)", err)
}

// image builds the resilcheck image from the repository's Dockerfile, with
// the helper in it, tagged for this test run and removed after it; it
// returns the tag and the helper's path on this machine.
func image(t *testing.T) (tag, helper string) {
	t.Helper()
	start := time.Now()
	defer func() { t.Logf("built the image and the helper in %s", time.Since(start).Round(time.Millisecond)) }()
	ctxDir := t.TempDir()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	build := func(dir, out, pkg string, env ...string) {
		cmd := exec.Command("go", "build", "-o", out, pkg)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, b)
		}
	}
	// The image's binaries are static; the same helper runs here too.
	build(root, filepath.Join(ctxDir, "bin", "resilcheck"), "./cmd/resilcheck", "CGO_ENABLED=0")
	helper = filepath.Join(ctxDir, "bin", "resilcheck-compose")
	build(".", helper, "./cmd/resilcheck-compose", "CGO_ENABLED=0")
	tag = fmt.Sprintf("resilcheck-test:%d", os.Getpid())
	docker(t, "build", "-q", "-t", tag, "-f", filepath.Join(root, "Dockerfile"), ctxDir)
	t.Cleanup(func() { _, _ = exec.Command("docker", "rmi", "-f", tag).CombinedOutput() })
	return tag, helper
}

// docker runs the docker CLI and returns its output.
func docker(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("docker", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("docker %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// freeAddrs returns n distinct loopback addresses no one listens on (yet),
// holding each finder's listener until all are found: a port freed before
// the next was asked for can be handed out again.
func freeAddrs(t *testing.T, n int) []string {
	t.Helper()
	out := make([]string, n)
	for i := range out {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		out[i] = l.Addr().String()
	}
	return out
}
