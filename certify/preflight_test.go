package certify

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// TestRun_preflight certifies a healthy loopback service whose dependencies'
// upstreams are closed loopback ports, listening servers or stand-ins: a
// closed one ends the run inconclusive in seconds, before any check, naming
// the dependency, the address and the dial error in the error and every
// report; a listening one, one that listens within the preflight's 2 s or
// a stand-in lets the checks run. An upstream a launcher starts itself is
// dialled once it is placed.
func TestRun_preflight(t *testing.T) {
	t.Parallel()
	service := httpServer(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusCreated) })
	live := httpServer(t, func(w http.ResponseWriter, r *http.Request) {})
	dead, dead2, late := "http://"+freeListen(t), "http://"+freeListen(t), freeListen(t)
	spec := func(deps ...string) string {
		s := fmt.Sprintf("version: 1\nkind: running\nservice: {url: %q, startup_timeout: 2s}\n"+
			"operations: [{name: pay, path: /v1/payments, body: '{\"amount\": {{.Amount}}}'}]\n"+
			"effects: {ledger: {dependency: processor}}\ndependencies:\n", service)
		for _, d := range deps {
			s += "  - " + d + "\n"
		}
		return s
	}
	cases := []struct {
		name  string
		spec  string
		kinds launch.Kinds
		dead  []string // the upstreams the run must name, in order; none: the checks run
		late  string   // an address that starts listening 300 ms after the run
	}{
		{name: "closed port", dead: []string{dead},
			spec: spec(fmt.Sprintf("{name: processor, listen: %q, upstream: %q}", freeListen(t), dead))},
		{name: "two closed ports, one listening", dead: []string{dead, dead2},
			spec: spec(fmt.Sprintf("{name: processor, listen: %q, upstream: %q}", freeListen(t), dead),
				fmt.Sprintf("{name: ledger, listen: %q, upstream: %q}", freeListen(t), live),
				fmt.Sprintf("{name: fx, listen: %q, upstream: %q}", freeListen(t), dead2))},
		{name: "listening",
			spec: spec(fmt.Sprintf("{name: processor, listen: %q, upstream: %q}", freeListen(t), live))},
		{name: "listening 300ms late", late: late,
			spec: spec(fmt.Sprintf("{name: processor, listen: %q, upstream: %q}", freeListen(t), "http://"+late))},
		{name: "stand-in",
			spec: spec(fmt.Sprintf("{name: processor, listen: %q}", freeListen(t)))},
		{name: "placed by the launcher, closed", dead: []string{dead}, kinds: placingKinds(service, dead),
			spec: spec(fmt.Sprintf("{name: processor, listen: %q}", freeListen(t)))},
		{name: "placed by the launcher, listening", kinds: placingKinds(service, live),
			spec: spec(fmt.Sprintf("{name: processor, listen: %q}", freeListen(t)))},
		{name: "a tier, closed", dead: []string{dead2, dead},
			spec: spec(fmt.Sprintf("{name: processor, listen: %q, upstream: %q}", freeListen(t), dead2)) +
				fmt.Sprintf("tiers: [{name: gateway}, {name: service, url: %q, listen: %q}]\n", dead, freeListen(t))},
		{name: "a tier, listening",
			spec: spec(fmt.Sprintf("{name: processor, listen: %q}", freeListen(t))) +
				fmt.Sprintf("tiers: [{name: gateway}, {name: service, url: %q, listen: %q}]\n", live, freeListen(t))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.late != "" {
				time.AfterFunc(300*time.Millisecond, func() {
					l, err := net.Listen("tcp", c.late)
					if err != nil {
						t.Error(err)
						return
					}
					t.Cleanup(func() { l.Close() })
				})
			}
			started := time.Now()
			res, err := Run(context.Background(), Config{Target: parseSpec(t, c.spec), Kinds: c.kinds, Checks: []string{"IK-03"}, Seed: 5})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			took := time.Since(started)
			if len(c.dead) == 0 {
				if res.Report.Aborted != "" || len(res.Report.Checks) != 1 {
					t.Fatalf("aborted %q with %d checks; want IK-03 run", res.Report.Aborted, len(res.Report.Checks))
				}
				return
			}
			if took > 5*time.Second {
				t.Errorf("the run took %s to end; want seconds", took)
			}
			var ue *UnreachableError
			if !errors.Is(res.Err(), ErrUnhealthy) || !errors.As(res.Err(), &ue) || !errors.Is(ue, syscall.ECONNREFUSED) {
				t.Fatalf("Err() = %v; want ErrUnhealthy with an *UnreachableError wrapping ECONNREFUSED", res.Err())
			}
			if len(res.Report.Checks) != 0 || res.Report.Verdict != reports.VerdictInconclusive {
				t.Errorf("%d checks, verdict %s; want none run, inconclusive", len(res.Report.Checks), res.Report.Verdict)
			}
			dir := t.TempDir()
			if err := res.Write(dir, []string{"json", "junit", "md", "html"}); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"report.json", "junit.xml", "summary.md", "report.html"} {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				last := 0
				for _, u := range c.dead {
					addr := strings.TrimPrefix(u, "http://")
					i := strings.Index(string(b), "dial tcp "+addr+": connect: connection refused")
					if i < last {
						t.Errorf("%s does not name %s and its dial error after the ones before:\n%s", f, addr, b)
					}
					last = i
				}
				if strings.Contains(string(b), live) {
					t.Errorf("%s names %s, which is listening", f, live)
				}
			}
			t.Logf("ended in %s: %s", took.Round(time.Millisecond), res.Report.Aborted)
		})
	}
}

// placingKinds are the kinds with running replaced by a launcher that
// starts dependency processor itself, at upstream, and a service at url.
func placingKinds(url, upstream string) launch.Kinds {
	return launch.Kinds{targets.KindRunning: {Launcher: func(*targets.Target) (launch.Launcher, error) {
		return placingLauncher{url: url, upstream: upstream}, nil
	}}}
}

type placingLauncher struct{ url, upstream string }

func (placingLauncher) Launched() []string { return []string{"processor"} }

func (l placingLauncher) Launch(ctx context.Context, env launch.Env) (*launch.Running, error) {
	if _, err := env.PlaceDependency(ctx, "processor", l.upstream); err != nil {
		return nil, err
	}
	return &launch.Running{URL: l.url}, nil
}

// TestRun_namedPorts certifies a process target that starts its own real
// processor on {{.Ports.processor}}, the port its dependency's upstream
// names: the same port in the command, the environment and the upstream,
// so the preflight reaches it and IK-03's charge goes through the proxy to it.
func TestRun_namedPorts(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	spec := fmt.Sprintf(`kind: process
process:
  command: [%q, "127.0.0.1:{{.Port}}", "127.0.0.1:{{.Ports.processor}}"]
  env: {%s: "1", PROCESSOR_ADDR: "127.0.0.1:{{.Ports.processor}}", PROCESSOR_URL: "{{.Dependencies.processor}}"}
service: {url: "http://127.0.0.1:{{.Port}}", health: /healthz}
operations: [{name: pay, path: /v1/payments, body: '{"amount": {{.Amount}}}', success: [201]}]
dependencies: [{name: processor, upstream: "http://127.0.0.1:{{.Ports.processor}}", path: /charges}]
effects: {ledger: {dependency: processor}}
`, exe, childEnv)
	res, err := Run(context.Background(), Config{Target: parseSpec(t, spec), Checks: []string{"IK-03"}, Seed: 5})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Report.Aborted != "" || len(res.Report.Checks) != 1 || res.Report.Checks[0].Status != reports.StatusPass {
		t.Fatalf("aborted %q (output %q), checks %+v; want IK-03 passing", res.Report.Aborted, res.Report.TargetOutput, res.Report.Checks)
	}
	t.Logf("IK-03: %s", res.Report.Checks[0].Observed)
}
