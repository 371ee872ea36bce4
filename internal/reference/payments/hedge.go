package payments

import (
	"context"
	"fmt"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/budget"
	"github.com/failsafe-go/failsafe-go/hedgepolicy"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

// HedgeConfig tunes hedging of the processor call: a charge still
// outstanding after Delay gets another copy, carrying the same
// Idempotency-Key, up to MaxCopies in all, while hedges in flight stay
// within the budget ("The Tail at Scale", Dean & Barroso, CACM 2013). The
// zero value of each field selects its default, shown in brackets.
type HedgeConfig struct {
	// Delay is how long a copy is outstanding before the next is sent
	// [300ms]; negative turns hedging off. It sits far above the
	// processor's normal answer time, so only a slow call is hedged.
	Delay     time.Duration
	MaxCopies int // copies per attempt, the first included [2]; 1 sends one

	BudgetRatio          float64 // hedges in flight as a share of charges in flight [0.2]
	BudgetMinConcurrency uint    // hedges always allowed in flight regardless of the ratio [3]
}

func (c HedgeConfig) withDefaults() HedgeConfig {
	if c.Delay == 0 {
		c.Delay = 300 * time.Millisecond
	}
	if c.MaxCopies <= 0 {
		c.MaxCopies = 2
	}
	if c.BudgetRatio <= 0 {
		c.BudgetRatio = 0.2
	}
	if c.BudgetMinConcurrency == 0 {
		c.BudgetMinConcurrency = 3
	}
	return c
}

// hedger sends one attempt of a charge as hedged copies. It is safe for
// concurrent use: its budget counts every charge in flight.
type hedger struct {
	policy failsafe.Policy[*attempt] // nil: no hedging

	// detached sends every copy on a context that only the charge's
	// deadline ends, so a losing copy runs on (hedge-loser-kept).
	detached bool
	// newKey gives each hedged copy a key of its own (hedge-new-key).
	newKey bool
}

// newHedger builds the hedging policy from cfg, broken as defects say.
func newHedger(cfg HedgeConfig, defects defect.Set) *hedger {
	h := &hedger{detached: defects.Has(defect.HedgeLoserKept), newKey: defects.Has(defect.HedgeNewKey)}
	cfg = cfg.withDefaults()
	if cfg.Delay < 0 || cfg.MaxCopies == 1 {
		return h
	}
	delay, hedges := cfg.Delay, cfg.MaxCopies-1
	if defects.Has(defect.HedgeNoDelay) {
		delay = 0
	}
	if defects.Has(defect.HedgeMaxCopies) {
		hedges = cfg.MaxCopies + 1 // the cap counted as hedges after the first, plus one
	}
	b := hedgepolicy.NewBuilderWithDelay[*attempt](delay).WithMaxHedges(hedges)
	if !defects.Has(defect.HedgeNoBudget) {
		b = b.WithBudget(budget.NewBuilder().
			WithMaxRate(cfg.BudgetRatio).
			WithMinConcurrency(cfg.BudgetMinConcurrency).
			Build())
	}
	h.policy = b.Build()
	return h
}

// send makes one attempt of call: a single copy when hedging is off, else
// copies until one answers, the losers cancelled. Every copy carries the
// call's key, so the processor charges once; under no-downstream-key there
// is none, and each copy may charge (hedging a non-idempotent call, which
// HD-05 catches).
func (h *hedger) send(ctx context.Context, call chargeCall, one func(ctx context.Context, key string) *attempt) *attempt {
	if h.policy == nil {
		return one(ctx, call.key)
	}
	a, err := failsafe.With(h.policy).WithContext(ctx).
		GetWithExecution(func(exec failsafe.Execution[*attempt]) (*attempt, error) {
			cctx, key := exec.Context(), call.key
			if h.detached {
				// The bug as written in the wild: a copy on a context of
				// its own, which only the deadline ends.
				var cancel context.CancelFunc
				cctx, cancel = context.WithDeadline(context.WithoutCancel(ctx), call.deadline)
				defer cancel()
			}
			if h.newKey && exec.IsHedge() {
				key = fmt.Sprintf("%s~%d", call.key, exec.Hedges())
			}
			a := one(cctx, key)
			return a, a.err
		})
	if a == nil {
		return &attempt{err: err}
	}
	return a
}
