package cli

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/resilcheck/resilcheck/certify"
	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/internal/reference/defect"
	"github.com/resilcheck/resilcheck/internal/reference/gateway"
	"github.com/resilcheck/resilcheck/internal/reference/store"
	"github.com/resilcheck/resilcheck/load"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// TestExitCode covers every documented code with the errors the commands
// return, wrapped as they reach exitCode.
func TestExitCode(t *testing.T) {
	t.Parallel()
	wrap := func(err error) error { return fmt.Errorf("certify: %w", err) }
	verdict := func(v reports.Verdict) error {
		return (&certify.Result{Report: &reports.Report{Verdict: v, Interrupted: "stopped by a signal"}}).Err()
	}
	cases := []struct {
		name string
		err  error
		want int
	}{
		{"no error", nil, exitPass},
		{"verdict pass", verdict(reports.VerdictPass), exitPass},
		{"verdict fail", verdict(reports.VerdictFail), exitFail},
		{"failed, wrapped", wrap(certify.ErrFailed), exitFail},
		{"bad flag", usagef("--rate-limit %q: want RATE", "x"), exitUsage},
		{"bad flag, wrapped", wrap(usagef("bad")), exitUsage},
		{"invalid spec", wrap(&targets.SpecError{File: "t.yaml", Problems: []targets.Problem{{Msg: "x"}}}), exitUsage},
		{"unknown defect", &defect.UnknownError{Names: []string{"typo"}}, exitUsage},
		{"unknown suite", fmt.Errorf("%w: unknown suite", certify.ErrConfig), exitUsage},
		{"load spec", fmt.Errorf("%w: rate 0", load.ErrSpec), exitUsage},
		{"not a results file", wrap(load.ErrUnknownFormat), exitUsage},
		{"foreign report", wrap(reports.ErrSchema), exitUsage},
		{"unknown report format", wrap(reports.ErrUnknownFormat), exitUsage},
		{"bad store URL", wrap(store.ErrBadURL), exitUsage},
		{"bad gateway option", wrap(gateway.ErrInvalidOption), exitUsage},
		{"certify: unhealthy", fmt.Errorf("%w: %w", certify.ErrUnhealthy, errors.New("refused")), exitInconclusive},
		{"targets: unhealthy", wrap(&launch.UnhealthyError{URL: "http://x/healthz"}), exitInconclusive},
		{"process exited", &launch.ExitedError{Command: []string{"x"}, Err: errors.New("exit status 1")}, exitInconclusive},
		{"verdict inconclusive", verdict(reports.VerdictInconclusive), exitInconclusive},
		{"load rate shortfall", fmt.Errorf("%w: lower --rate", &load.ShortfallError{Requested: 100, Achieved: 50}), exitInconclusive},
		{"verdict interrupted", verdict(reports.VerdictInterrupted), exitInterrupted},
		{"cancelled", fmt.Errorf("x: %w", context.Canceled), exitInterrupted},
		{"surprise", errors.New("surprise"), exitInternal},
		{"panic", panicError{"nil map"}, exitInternal},
	}
	seen := map[int]bool{}
	for _, c := range cases {
		got := exitCode(c.err)
		if got != c.want {
			t.Errorf("%s: exitCode(%v) = %d; want %d", c.name, c.err, got, c.want)
		}
		seen[got] = true
	}
	for code := exitPass; code <= exitInternal; code++ {
		if !seen[code] {
			t.Errorf("no case yields exit code %d", code)
		}
	}
}
