package certify

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/clients"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
)

// PhaseClient is reported while the client suite runs its scenarios, all at once.
const PhaseClient = "running the client's scenarios"

// runClient certifies a kind-client target: resilcheck plays the server,
// runs the client once per scenario of the client suite and judges it.
func runClient(ctx context.Context, cfg Config) (*Result, error) {
	t := cfg.Target
	if slices.ContainsFunc(cfg.Suites, func(s string) bool { return s != clients.SuiteName }) {
		return nil, fmt.Errorf("%w: a client target runs the %s suite only, not %v", ErrConfig, clients.SuiteName, cfg.Suites)
	}
	client, policy, scenarios, err := clients.FromSpec(t)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	selected, err := selectChecks([]check.Suite{clients.Suite(clients.Config{Policy: policy})}, nil, cfg.Checks)
	if err != nil {
		return nil, err
	}
	gate, err := cfg.gate()
	if err != nil {
		return nil, err
	}
	seed := cfg.Seed
	if seed == 0 {
		seed = DrawSeed()
	}
	started := time.Now()
	journal := faults.NewJournal(faults.WithCapacity(1 << 16))
	rep := &reports.Report{
		Schema:    reports.Schema,
		Seed:      seed,
		Reproduce: reproduceLine(cfg.Reproduce, seed),
		Target:    reports.Target{Name: t.Name, Kind: string(t.Kind)},
		Tool:      reports.Tool{Name: "resilcheck", Version: cmp.Or(cfg.Version, "dev"), Go: runtime.Version()},
		Started:   started.UTC(),
		Journal:   JournalFile,
	}
	res := &Result{Report: rep, Journal: journal}
	if cfg.Progress != nil {
		cfg.Progress(Event{Phase: PhaseClient, Total: len(selected)})
	}
	tol := clients.Tolerance{StartUp: t.Client.StartupAllowance}
	out, err := clients.Run(ctx, client, policy, clients.Options{Scenarios: scenarios, Checks: cfg.Checks, Seed: seed, Journal: journal, Tolerance: tol})
	switch {
	case err == nil:
		rep.Checks, rep.Tolerances = out.Checks, out.Tolerances
		clientProgress(cfg.Progress, selected, out.Checks)
	case errors.Is(err, clients.ErrNoTraffic) && clients.NotStarted(err):
		return nil, fmt.Errorf("%w: the client command could not start: %w", ErrConfig, err)
	case errors.Is(err, clients.ErrNoTraffic):
		res.abort(ctx, fmt.Errorf("%w: %w", ErrUnhealthy, err))
	case ctx.Err() != nil:
		rep.Interrupted = "stopped by a signal while the client's scenarios ran"
	case errors.Is(err, clients.ErrInvalid):
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	default:
		return nil, fmt.Errorf("certify: running the client's scenarios: %w", err) // not the spec's fault
	}
	rep.Duration = reports.Duration(time.Since(started))
	if cfg.Baseline != nil {
		rep.CompareBaseline(cfg.Baseline, cfg.BaselineFile)
	}
	rep.ApplyGate(gate, started)
	return res, nil
}

// clientProgress tells progress each judged check as finished, in order:
// the client's scenarios run all at once, so no check starts on its own.
// clients.Run judges the selected checks in turn, so results[i] is
// selected[i]'s.
func clientProgress(progress func(Event), selected []check.Check, results []reports.Check) {
	if progress == nil {
		return
	}
	for i, c := range results {
		progress(Event{Total: len(selected), Done: i + 1, Finished: true, Result: c, Check: selected[i]})
	}
}
