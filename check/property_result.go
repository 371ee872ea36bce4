package check

import (
	"fmt"
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

// harnessTrouble keeps the first failure of resilcheck's own making met
// while exploring (a fault rule its proxy would not take): the case is
// skipped, not failed, so the target is not blamed for it, and a run that
// found no failure ends inconclusive.
type Trouble struct{ err error }

// Err is the first failure Skip recorded, or nil.
func (h *Trouble) Err() error { return h.err }

// Skip records err and skips t's case.
func (h *Trouble) Skip(t *rapid.T, what string, err error) {
	if h.err == nil {
		h.err = fmt.Errorf("%s: %w", what, err)
	}
	t.Skipf("%s: %v (resilcheck's own failure, not the target's)", what, err)
}

// Result turns a property run under cfg into the check's result:
// inconclusive when too few cases counted, a pass, or a failure with
// rapid's message, the shrunk story and evidence.
func (e Exploration) Result(r properties.Result, cfg properties.Config, evidence []faults.Entry) Result {
	observed := fmt.Sprintf("%d cases (%d %s) in %s, seed %d", r.Cases, r.Meaningful, e.Meaningful, cfg.Budget, cfg.Seed)
	if cfg.Budget == 0 {
		observed = fmt.Sprintf("%d cases (%d %s), seed %d", r.Cases, r.Meaningful, e.Meaningful, cfg.Seed)
	}
	switch {
	case !r.Failed && e.Trouble != nil && e.Trouble.err != nil:
		return Inconclusive("resilcheck could not run every case (%v), so %s is no verdict on the target", e.Trouble.err, observed)
	case r.Inconclusive:
		return Inconclusive("only %d of %d cases %s (%s); %d needed", r.Meaningful, r.Cases, e.Meaningful, observed, max(cfg.MinCases, 1))
	case !r.Failed:
		return Pass(e.Want, "held over "+observed+e.Held)
	}
	out := Fail(e.Want, fmt.Sprintf("%s (seed %d, shrunk to the story below)", r.Message, cfg.Seed), evidence...)
	out.Counterexample, out.FailedCase = r.Story, r.FailedCase
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
