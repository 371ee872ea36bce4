package certify

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/clients"
	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// withClient makes kind client known, as a program's table of kinds does.
var withClient = targets.WithKinds(launch.Kinds{targets.KindClient: clients.Kind()}.Specs())

// TestRun_clientNeverCalls: a client command that never reaches the
// harness leaves nothing to judge: the run is inconclusive, not a pass.
func TestRun_clientNeverCalls(t *testing.T) {
	spec, err := targets.Parse("c.yaml", []byte("client: {command: ['true'], policy: {max_attempts: 3}}\n"), withClient)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(t.Context(), Config{Target: spec, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Report.Verdict != reports.VerdictInconclusive || !errors.Is(res.Err(), ErrUnhealthy) {
		t.Errorf("verdict %s, err %v; want inconclusive and ErrUnhealthy", res.Report.Verdict, res.Err())
	}
	if _, err := Run(t.Context(), Config{Target: spec, Suites: []string{"idempotency"}}); !errors.Is(err, ErrConfig) {
		t.Errorf("a service suite for a client: %v, want ErrConfig", err)
	}
}

// TestRun_clientCommandMissing: a client command that cannot start at all
// is the spec's mistake (ErrConfig, exit 2), not a client that failed to
// call (ErrUnhealthy, exit 3).
func TestRun_clientCommandMissing(t *testing.T) {
	spec, err := targets.Parse("c.yaml", []byte("client: {command: ['/nonexistent/resilcheck-client'], policy: {max_attempts: 3}}\n"), withClient)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(t.Context(), Config{Target: spec, Seed: 1}); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "could not start") {
		t.Errorf("Run = %v; want ErrConfig saying the command could not start", err)
	}
}

// TestConfig_gate_baselineTarget: a baseline report on another target is
// refused, since under --fail-on-new its failures would pass as known.
func TestConfig_gate_baselineTarget(t *testing.T) {
	spec, err := targets.Parse("c.yaml", []byte("name: orders\nclient: {command: ['true'], policy: {max_attempts: 3}}\n"), withClient)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		base string
		ok   bool
	}{{"orders", true}, {"", true}, {"payments", false}} {
		cfg := Config{Target: spec, Baseline: &reports.Report{Target: reports.Target{Name: c.base}}, BaselineFile: "old.json", NewOnly: true}
		if _, err := cfg.gate(); (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrConfig)) {
			t.Errorf("baseline on %q: %v; want ok %v (ErrConfig otherwise)", c.base, err, c.ok)
		}
	}
}

// TestEnvironment_stopOnClose: the target gets its own stop budget (a
// short one once the run was interrupted), and a teardown that fails or
// runs out of time is kept, not dropped.
func TestEnvironment_stopOnClose(t *testing.T) {
	var budget time.Duration
	running := &launch.Running{StopTimeout: time.Minute, StopFunc: func(ctx context.Context) error {
		deadline, _ := ctx.Deadline()
		budget = time.Until(deadline)
		return errors.New("project still up")
	}}
	env := &environment{}
	env.stopOnClose(t.Context(), running)
	env.close()
	if budget < 50*time.Second || env.teardown == nil || !strings.Contains(env.teardown.Error(), "still up") {
		t.Errorf("Stop got %s; teardown error %v; want about a minute and the error kept", budget, env.teardown)
	}
	// An interrupted run does not wait for in-flight requests: the user's
	// second signal allows a few seconds for the teardown and the report.
	interrupted, cancel := context.WithCancel(t.Context())
	cancel()
	env = &environment{}
	running.StopFunc = func(ctx context.Context) error {
		deadline, _ := ctx.Deadline()
		budget = time.Until(deadline)
		return nil
	}
	env.stopOnClose(interrupted, &launch.Running{StopTimeout: time.Minute, StopFunc: running.StopFunc})
	env.close()
	if budget > interruptedStop || env.teardown != nil {
		t.Errorf("an interrupted run's Stop got %s (error %v); want at most %s", budget, env.teardown, interruptedStop)
	}
}

// TestRun_clientProgress: a client run counts only the checks selected, and
// tells progress each one as finished, since its scenarios run all at once.
func TestRun_clientProgress(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("needs curl as the client")
	}
	spec, err := targets.Parse("c.yaml", []byte("client: {command: [curl, -s, -o, /dev/null, '{{.URL}}'], policy: {max_attempts: 3}}\n"), withClient)
	if err != nil {
		t.Fatal(err)
	}
	var events []Event
	res, err := Run(t.Context(), Config{Target: spec, Seed: 1, Checks: []string{"CL-01", "CL-02"}, Progress: func(e Event) { events = append(events, e) }})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range events {
		got = append(got, fmt.Sprintf("%s|%s|%d/%d|%v", e.Phase, e.Check.ID, e.Done, e.Total, e.Finished))
	}
	want := []string{PhaseClient + "||0/2|false", "|CL-01|1/2|true", "|CL-02|2/2|true"}
	if !slices.Equal(got, want) {
		t.Errorf("progress events %q; want %q", got, want)
	}
	if n := len(res.Report.Checks); n != 2 || events[len(events)-1].Result.Status != res.Report.Checks[1].Status {
		t.Errorf("report has %d checks; the last event's status %s", n, events[len(events)-1].Result.Status)
	}
}

// TestRun_clientStartupAllowance: client.startup_allowance reaches the
// client suite, and the report lists it among the tolerances.
func TestRun_clientStartupAllowance(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("needs curl as the client")
	}
	for _, c := range []struct{ spec, want string }{
		{"client: {command: [curl, -s, -o, /dev/null, '{{.URL}}'], policy: {max_attempts: 3}, startup_allowance: 3s}\n", "3s"},
		{"client: {command: [curl, -s, -o, /dev/null, '{{.URL}}'], policy: {max_attempts: 3}}\n", "10s"},
	} {
		spec, err := targets.Parse("c.yaml", []byte(c.spec), withClient)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(t.Context(), Config{Target: spec, Seed: 1, Checks: []string{"CL-01"}})
		if err != nil {
			t.Fatal(err)
		}
		var got string
		for _, tol := range res.Report.Tolerances {
			if tol.Name == "start-up allowance" {
				got = tol.Value
			}
		}
		if got != c.want {
			t.Errorf("start-up allowance %q in the report; want %q", got, c.want)
		}
	}
	if _, err := targets.Parse("c.yaml", []byte("client: {command: ['true'], startup_allowance: -1s}\n"), withClient); err == nil || !strings.Contains(err.Error(), "client.startup_allowance") {
		t.Errorf("a negative allowance: %v; want a problem at client.startup_allowance", err)
	}
}
