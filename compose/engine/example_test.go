package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/certify"
	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/check/builtin"
	"github.com/resilcheck/resilcheck/internal/compose"
	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/internal/reference/defect"
	"github.com/resilcheck/resilcheck/internal/reference/target"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// exampleDir is the compose project the tests certify.
const exampleDir = "../../examples/compose"

// TestExample certifies examples/compose, the reference stack as a compose
// project of three containers, gateway and service two tiers with the hop
// proxy between them, the way a user does with its target.yaml,
// but with compose.host.yaml added so the containers share the host's
// network (traffic on loopback, free ports): green as shipped; with
// compose.defect.yaml, red on exactly the checks the defect matrix names;
// with a gateway that cannot start, aborted with every container's log.
// Each variant must leave no container, network or volume behind.
func TestExample(t *testing.T) {
	requireDocker(t)
	tag, helper := image(t)
	t.Setenv("RESILCHECK_IMAGE", tag)
	t.Setenv(compose.HelperEnv, helper)

	t.Run("green", func(t *testing.T) {
		spec := hostSpec(t, "green")
		res := certifyExample(t, spec, nil)
		for _, c := range res.Report.Checks {
			if c.Status == reports.StatusFail || c.Status == reports.StatusInconclusive {
				t.Errorf("%s %s: %s; observed: %s", c.ID, c.Status, c.Reason, c.Observed)
			}
		}
		if len(res.Logs) != 0 {
			t.Errorf("logs attached to a passing run: %v", logNames(res.Logs))
		}
	})

	t.Run("defect", func(t *testing.T) {
		const name = defect.NoDownstreamKey // compose.defect.yaml switches it on
		want := target.Matrix()[name]
		spec := hostSpec(t, "defect", "compose.defect.yaml")
		res := certifyExample(t, spec, suitesOf(t, want.Must))
		var failed []string
		for _, c := range res.Report.Checks {
			if c.Status != reports.StatusPass && c.Status != reports.StatusNotApplicable && !want.Allows(c.ID) {
				t.Errorf("%s %s, which %s does not explain: %s%s", c.ID, c.Status, name, c.Reason, c.Observed)
			}
			if c.Status == reports.StatusFail {
				failed = append(failed, c.ID)
				// Two tiers, gateway and service: the defect is the service's.
				if c.Tier != "service" {
					t.Errorf("%s laid at tier %q; the defect is in the service: %s", c.ID, c.Tier, c.Observed)
				}
			}
		}
		for _, id := range want.Must {
			if !slices.Contains(failed, id) {
				t.Errorf("%s passed; %s must fail it", id, name)
			}
		}
		// A failed check brings every container's log into the report.
		wantLogs := []string{"gateway-1", "processor-1", "service-1"}
		if got := logNames(res.Logs); !slices.Equal(got, wantLogs) {
			t.Errorf("logs %v; want %v", got, wantLogs)
		}
		dir := t.TempDir()
		if err := res.Write(dir, []string{"json"}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, certify.LogsDir, "service-1.log"))
		if err != nil || !strings.Contains(string(b), "service http://") {
			t.Errorf("service-1.log = %q, %v; want the service's start line", b, err)
		}
	})

	t.Run("image", func(t *testing.T) {
		// The README's line: the image certifies a compose target given
		// the engine's socket, its helper inside.
		root, err := filepath.Abs("../..")
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		specFile := imageSpec(t, dir, root)
		sock := "/var/run/docker.sock"
		fi, err := os.Stat(sock)
		if err != nil {
			t.Skipf("SKIP: the engine is not at %s (%v), which the README's line mounts", sock, err)
		}
		gid := fi.Sys().(*syscall.Stat_t).Gid
		start := time.Now()
		cmd := exec.Command("docker", "run", "--rm", "--network", "host",
			"--user", fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid()), "--group-add", fmt.Sprint(gid),
			"-v", sock+":"+sock, "-v", root+":"+root, "-v", dir+":"+dir, "-w", dir,
			"-e", "RESILCHECK_IMAGE="+tag, "-e", "GATEWAY_ADDR", "-e", "SERVICE_ADDR", "-e", "PROCESSOR_ADDR",
			tag, "certify", "-f", specFile, "--check", "IK-03", "--seed", "7", "-q", "--report-dir", "report", "--format", "json")
		out, err := cmd.CombinedOutput()
		t.Logf("docker run certify: %s\n%s", time.Since(start).Round(time.Millisecond), out)
		if err != nil {
			t.Fatalf("docker run … certify: %v\n%s", err, out)
		}
		b, err := os.ReadFile(filepath.Join(dir, "report", "report.json"))
		if err != nil || !strings.Contains(string(b), `"verdict": "pass"`) || !strings.Contains(string(b), `"kind": "compose"`) {
			t.Errorf("report.json: %v; want a passing verdict\n%.2000s\n%s", err, b, out)
		}
	})

	t.Run("unhealthy", func(t *testing.T) {
		// The gateway exits at once: its --service-url is missing.
		broken := filepath.Join(t.TempDir(), "broken.yaml")
		if err := os.WriteFile(broken, []byte("services:\n  gateway:\n    command: [reference, gateway]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		spec := hostSpec(t, "unhealthy", broken)
		spec.Service.StartupTimeout = 5 * time.Second
		res := certifyExample(t, spec, []string{"idempotency"})
		if err := res.Err(); !errors.Is(err, certify.ErrUnhealthy) && !errors.Is(err, launch.ErrUnhealthy) {
			t.Errorf("Err() = %v; want unhealthy (exit 3)", err)
		}
		if res.Report.Aborted == "" || !strings.Contains(res.Report.TargetOutput, "--service-url is required") {
			t.Errorf("aborted %q with output %q; want the gateway's complaint", res.Report.Aborted, res.Report.TargetOutput)
		}
		i := slices.IndexFunc(res.Logs, func(l launch.Log) bool { return l.Name == "gateway-1" })
		if i < 0 || !strings.Contains(res.Logs[i].Output, "--service-url is required") {
			t.Errorf("logs %v; want gateway-1 with its complaint", logNames(res.Logs))
		}
	})
}

// kinds are the kinds these tests bring up: kind compose alone.
var kinds = launch.Kinds{targets.KindCompose: compose.Kind()}

// hostSpec loads examples/compose/target.yaml with compose.host.yaml and
// extra compose files added, on free loopback ports, as project
// resilcheck-test-NAME.
func hostSpec(t *testing.T, name string, extra ...string) *targets.Target {
	t.Helper()
	spec, err := targets.Load(filepath.Join(exampleDir, "target.yaml"), targets.WithKinds(kinds.Specs()))
	if err != nil {
		t.Fatal(err)
	}
	gateway, service, processor := hostAddrs(t)
	spec.Compose.Files = append(slices.Clone(spec.Compose.Files), "compose.host.yaml")
	spec.Compose.Files = append(spec.Compose.Files, extra...)
	spec.Compose.Project = "resilcheck-test-" + name
	spec.Compose.DependencyHost = "127.0.0.1"
	spec.Service.URL = "http://" + gateway
	deps := slices.Clone(spec.Dependencies)
	deps[0].Listen, deps[0].Upstream = "127.0.0.1:0", "http://"+processor
	spec.Dependencies = deps
	tiers := slices.Clone(spec.Tiers)
	tiers[1].Listen, tiers[1].URL = "127.0.0.1:0", "http://"+service
	spec.Tiers = tiers
	if err := spec.Validate(targets.WithKinds(kinds.Specs())); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { assertGone(t, spec.Compose.Project) })
	return spec
}

// hostAddrs picks free loopback addresses for the three components, sets
// the variables compose.host.yaml reads, and returns them.
func hostAddrs(t *testing.T) (gateway, service, processor string) {
	t.Helper()
	a := freeAddrs(t, 3)
	gateway, service, processor = a[0], a[1], a[2]
	t.Setenv("GATEWAY_ADDR", gateway)
	t.Setenv("SERVICE_ADDR", service)
	t.Setenv("PROCESSOR_ADDR", processor)
	return gateway, service, processor
}

// imageSpec writes examples/compose/target.yaml as the tests run it (see
// hostSpec), with absolute compose files under root, as dir/target.yaml,
// for a resilcheck in a container, and returns its path.
func imageSpec(t *testing.T, dir, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(exampleDir, "target.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	gateway, service, processor := hostAddrs(t)
	const project = "resilcheck-test-image"
	t.Cleanup(func() { assertGone(t, project) })
	ex := filepath.Join(root, "examples", "compose")
	spec := string(b)
	for _, r := range [][2]string{
		{"  files: [compose.yaml]\n", fmt.Sprintf("  files: [%s, %s]\n  project: %s\n  dependency_host: 127.0.0.1\n",
			filepath.Join(ex, "compose.yaml"), filepath.Join(ex, "compose.host.yaml"), project)},
		{"url: http://127.0.0.1:8080", "url: http://" + gateway},
		{"upstream: http://127.0.0.1:9090", "upstream: http://" + processor + "\n    listen: 127.0.0.1:0"},
		{"    url: http://127.0.0.1:9080", "    url: http://" + service + "\n    listen: 127.0.0.1:0"},
	} {
		if !strings.Contains(spec, r[0]) {
			t.Fatalf("examples/compose/target.yaml has no %q to replace", r[0])
		}
		spec = strings.Replace(spec, r[0], r[1], 1)
	}
	path := filepath.Join(dir, "target.yaml")
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// certifyExample certifies spec (only the suites given, if any) and returns
// the result; it fails the test on an error that yields no report.
func certifyExample(t *testing.T, spec *targets.Target, suiteNames []string) *certify.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	res, err := certify.Run(ctx, certify.Config{Target: spec, Kinds: kinds, Suites: suiteNames, Seed: 7})
	if err != nil {
		t.Fatalf("certify: %v", err)
	}
	t.Logf("certified %s in %s: %s", spec.Compose.Project, time.Since(start).Round(time.Millisecond), res.Report.Verdict)
	return res
}

// assertGone fails when the project left a container, network or volume.
func assertGone(t *testing.T, project string) {
	label := "label=com.docker.compose.project=" + project
	for _, kind := range []string{"container", "network", "volume"} {
		args := []string{kind, "ls", "-q", "--filter", label}
		if kind == "container" {
			args = append(args, "--all")
		}
		if out := strings.TrimSpace(docker(t, args...)); out != "" {
			t.Errorf("project %s left %s(s) behind: %s", project, kind, out)
		}
	}
}

// suitesOf names the suites the checks belong to.
func suitesOf(t *testing.T, ids []string) []string {
	t.Helper()
	var out []string
	for _, e := range check.Catalogue(builtin.Catalogued()) {
		if slices.Contains(ids, e.ID) && !slices.Contains(out, e.Suite) {
			out = append(out, e.Suite)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no suite has %v", ids)
	}
	return out
}

func logNames(logs []launch.Log) []string {
	names := make([]string, len(logs))
	for i, l := range logs {
		names[i] = l.Name
	}
	return names
}
