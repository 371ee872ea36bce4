package check

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	"pgregory.net/rapid"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/properties"
)

// Exploration is what a property check says about its run, whatever the
// outcome.
type Exploration struct {
	Want       string   // the property, as the result's Expected
	Meaningful string   // what a case that counts did, e.g. "reached the dependency"
	Held       string   // appended to a pass's observation; may be empty
	Trouble    *Trouble // resilcheck's own failures while exploring; may be nil
}

// Trouble keeps the first failure of resilcheck's own making met
// while exploring (a fault rule its proxy would not take): the case is
// skipped, not failed, so the target is not blamed for it, and a run that
// found no failure ends inconclusive.
// Workers exploring side by side may share one.
type Trouble struct {
	mu  sync.Mutex
	err error
}

// Err is the first failure Skip recorded, or nil.
func (h *Trouble) Err() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// Skip records err and skips t's case.
func (h *Trouble) Skip(t *rapid.T, what string, err error) {
	h.mu.Lock()
	if h.err == nil {
		h.err = fmt.Errorf("%s: %w", what, err)
	}
	h.mu.Unlock()
	t.Skipf("%s: %v (resilcheck's own failure, not the target's)", what, err)
}

// ExploreEach runs the property id on every copy of the target the check may
// drive (Copies), one worker per copy, side by side (properties.ExploreEach):
// newRun makes worker w's case function on its copy hw, and is called for
// each worker in order before any runs. Result.Worker names the worker
// whose case a failure tells; that case's exchanges on every side are kept
// for laying the failure at a tier (failedCase).
func (h *Harness) ExploreEach(id string, cfg properties.Config, newRun func(w int, hw *Harness) func(*rapid.T) bool) properties.Result {
	hs := h.Copies()
	runs := make([]func(*rapid.T) bool, len(hs))
	last := make([][]faults.Entry, len(hs)) // each worker's latest case: a failure's final replay
	for w, hw := range hs {
		run := newRun(w, hw)
		runs[w] = func(t *rapid.T) bool {
			mark := hw.Journal.LastSeq()
			defer func() { last[w] = hw.Journal.After(mark) }()
			return run(t)
		}
	}
	r := properties.ExploreEach(id, cfg, runs)
	if r.Failed && r.Workers > 1 {
		r.WorkerName = fmt.Sprintf("copy %d (worker %d of %d)", hs[r.Worker].CopyN, r.Worker+1, r.Workers)
	}
	if r.Failed && r.Worker < len(last) {
		h.Shared(failedCaseKey(id), func() any { return new(failedCase) }).(*failedCase).set(last[r.Worker])
	}
	return r
}

// PrepareLent starts prepare on each copy lent to h's check (Beside), side
// by side, each in a case of its own named for its worker and suffix, and
// returns a wait for what each returned, by worker (nil at 0: h's own copy,
// which the check prepares itself meanwhile). A property warms its lent
// copies up before its exploring clock starts, beside its own, so each
// worker explores from the first instant rather than healing in its first
// case.
func (h *Harness) PrepareLent(ctx context.Context, id, suffix string, prepare func(context.Context, *Case) error) (wait func() []error) {
	errs := make([]error, len(h.Beside)+1)
	var wg sync.WaitGroup
	for i, hw := range h.Beside {
		wg.Go(func() {
			c := hw.NewCase(ctx, WorkerID(id, i+1)+suffix)
			defer c.Done(ctx)
			errs[i+1] = prepare(ctx, c)
		})
	}
	return func() []error {
		wg.Wait()
		return errs
	}
}

// failedCaseKey keys the exchanges of a property's failing case among the
// run's shared values.
type failedCaseKey string

// failedCase holds the exchanges of the case a property's failure tells.
type failedCase struct {
	mu      sync.Mutex
	entries []faults.Entry
}

func (f *failedCase) set(es []faults.Entry) { f.mu.Lock(); f.entries = es; f.mu.Unlock() }

func (f *failedCase) get() []faults.Entry { f.mu.Lock(); defer f.mu.Unlock(); return f.entries }

// failedCaseOf returns the exchanges of the case the failure of the
// property explored as id tells, none if it did not fail.
func (h *Harness) failedCaseOf(id string) []faults.Entry {
	return h.Shared(failedCaseKey(id), func() any { return new(failedCase) }).(*failedCase).get()
}

// WorkerID names worker w's cases of the property id: id itself for the
// first worker, so one copy names its cases as before, and "id.N" for the
// N-th copy.
func WorkerID(id string, w int) string {
	if w == 0 {
		return id
	}
	return fmt.Sprintf("%s.%d", id, w+1)
}

// Result turns a property run under cfg into the check's result:
// inconclusive when too few cases counted, a pass, or a failure with
// rapid's message, the shrunk story and evidence.
func (e Exploration) Result(r properties.Result, cfg properties.Config, evidence []faults.Entry) Result {
	observed := fmt.Sprintf("%d cases (%d %s) in %s, seed %d", r.Cases, r.Meaningful, e.Meaningful, cfg.Budget, cfg.Seed)
	if cfg.Budget == 0 {
		observed = fmt.Sprintf("%d cases (%d %s), seed %d", r.Cases, r.Meaningful, e.Meaningful, cfg.Seed)
	}
	if r.Workers > 1 {
		observed += fmt.Sprintf(", on %d copies side by side", r.Workers)
	}
	switch {
	case !r.Failed && e.Trouble != nil && e.Trouble.Err() != nil:
		return Inconclusive("resilcheck could not run every case (%v), so %s is no verdict on the target", e.Trouble.Err(), observed)
	case r.Inconclusive:
		return Inconclusive("only %d of %d cases %s (%s); %d needed", r.Meaningful, r.Cases, e.Meaningful, observed, max(cfg.MinCases, 1))
	case !r.Failed:
		return Pass(e.Want, "held over "+observed+e.Held)
	}
	where := fmt.Sprintf("seed %d", cfg.Seed)
	if r.Workers > 1 {
		where = fmt.Sprintf("%s, seed %d, its own seed %d", cmp.Or(r.WorkerName, fmt.Sprintf("worker %d of %d", r.Worker+1, r.Workers)), cfg.Seed, r.Seed)
	}
	out := Fail(e.Want, fmt.Sprintf("%s (%s, shrunk to the story below)", r.Message, where), evidence...)
	out.Counterexample, out.FailedCase, out.Unreplayed, out.Untold = r.Story, r.FailedCase, r.Unreplayed, r.Untold
	return out
}

// Exploring returns cfg bounded the way this run explores: exactly
// ExploreCases cases when a replay asks for them, else --explore's time or
// def when def > 0, else cfg's own count (as many cases as fit --explore's
// time when it is set).
func (h *Harness) Exploring(cfg properties.Config, def time.Duration) properties.Config {
	switch {
	case h.ExploreCases > 0:
		cfg.Checks, cfg.Budget = h.ExploreCases, 0
	case h.Explore > 0:
		cfg.Checks, cfg.Budget = 0, h.Explore
	case def > 0:
		cfg.Checks, cfg.Budget = 0, def
	}
	return cfg
}
