package hedging

import (
	"fmt"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/reports"
)

// Name is the suite's name in reports.
const Name = "hedging"

const (
	tailAtScale = `Dean & Barroso, "The Tail at Scale", CACM 56(2), 2013 (Within-request short-term adaptations)`
	grfcA6      = "gRFC A6 (hedgingPolicy)"
	sreCh21     = `Google SRE book ch. 21 "Handling Overload"`
	ikDraft     = "draft-ietf-httpapi-idempotency-key-header-07"
)

// Config tunes the hedging suite. Zero values mean the documented defaults,
// each with the reason on its field.
type Config struct {
	// Tolerance is the slack on every time bound; 0 means 100 ms, raised to
	// the harness's slack on a noisy runner. The declared delay is judged
	// one-sided on each side by it.
	Tolerance time.Duration
	// Hold is how long the first copy of a call is held at the dependency,
	// so the target has reason to hedge; 0 means 4 delays, at least the
	// delay plus 1 s (1.2 s for HD-04 and HD-05 when no hedging is
	// declared).
	Hold time.Duration
	// Concurrent is how many requests HD-03 sends at once while every call
	// is slow; 0 means 16, enough that a budget of 10 % to 25 % allows far
	// fewer hedges than requests.
	Concurrent int
}

func (c Config) tolerance(h *check.Harness) time.Duration {
	return max(check.OrDuration(c.Tolerance, 100*time.Millisecond), h.Slack())
}

// cancelSlack is how long after the winner's answer a loser may still be
// running: cancelSlackFactor tolerances, since a cancel crosses the
// target's read of the answer, its cancel of the loser's context and its
// transport closing the connection, each a scheduling point of the
// target's process, which the runner's stall watch cannot see (on a
// loaded CI runner a correct target let a loser go 124 ms after the
// winner). A loser kept running holds on until its held answer, a second
// or more.
func (c Config) cancelSlack(h *check.Harness) time.Duration {
	return cancelSlackFactor * c.tolerance(h)
}

const cancelSlackFactor = 3

// hold is how long a held copy is held, for a target hedging after delay.
func (c Config) hold(delay time.Duration) time.Duration {
	if c.Hold > 0 {
		return c.Hold
	}
	if delay <= 0 {
		return 1200 * time.Millisecond
	}
	return max(4*delay, delay+time.Second)
}

func (c Config) concurrent() int {
	if c.Concurrent > 0 {
		return c.Concurrent
	}
	return 16
}

// config is the settings of h's suite.
func config(h *check.Harness) Config { return check.SuiteConfig[Config](h, Name) }

// needHedging: the target declares policy.hedging.
var needHedging = check.Need{Name: "hedging",
	Doc: "the target declares that it hedges its dependency calls (policy.hedging: delay, max_copies, budget)",
	Unmet: func(h *check.Harness) string {
		if !h.Policy.Hedging.Declared() {
			return "the target declares no hedging (policy.hedging)"
		}
		return ""
	}}

func checks() []check.Check {
	needs := []check.Need{check.NeedDependency, needHedging}
	return []check.Check{
		{ID: "HD-01", Suite: Name, Timed: true, Level: reports.LevelRecommended, Needs: needs, Source: tailAtScale + "; " + grfcA6 + " (hedgingDelay)",
			Title: "a call answered quickly gets no copy; a slow call gets its next copy once the declared delay has passed, not before", Run: delayKept},
		{ID: "HD-02", Suite: Name, Timed: true, Level: reports.LevelRecommended, Needs: needs, Source: grfcA6 + " (maxAttempts: the original and its hedges)",
			Title: "however long a call hangs, it gets no more copies than the declared max_copies", Run: copiesCapped},
		{ID: "HD-03", Suite: Name, Takes: 1500 * time.Millisecond, Timed: true, Level: reports.LevelRecommended, Needs: needs, Source: tailAtScale + " (hedging limits the extra load to about 5 %); " + sreCh21 + " (retry budget); " + grfcA6 + " (throttling applies to hedges)",
			Title: "with the dependency slow for every call, hedged copies stay within the declared budget: hedging does not double an overload", Run: budgetKept},
		{ID: "HD-04", Suite: Name, Timed: true, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedDependency}, Source: tailAtScale + " (the client cancels remaining outstanding requests once the first result is received); " + grfcA6,
			Title: "once one copy succeeds, the target cancels the copies still outstanding", Run: losersCancelled},
		{ID: "HD-01p", Suite: Name, Takes: exploreFor, Explores: true, Timed: true, Level: reports.LevelRecommended, Needs: needs, Source: tailAtScale + "; " + grfcA6 + " (a property over random latencies and refusals)",
			Title: "for random latencies (a script per call, a bimodal tail, every call slow) and refusals: no copy before the delay while the others are pending, no more than max_copies, one key, the losers let go once a copy succeeds, one effect", Run: hedgeProperty},
		{ID: "HD-05", Suite: Name, Level: reports.LevelShould, Needs: []check.Need{check.NeedDependency}, Source: ikDraft + " §1; " + tailAtScale + " (hedging suits operations that do not perform critical mutations)",
			Title: "copies of a write sent while the first is outstanding carry the same idempotency key, and the dependency makes one effect", Run: oneEffect},
	}
}

// tolerances are the suite's thresholds.
func tolerances(h *check.Harness) []reports.Tolerance {
	cfg := config(h)
	p := h.Policy.Hedging
	out := []reports.Tolerance{
		{Name: "hedging slack", Value: cfg.tolerance(h).String(),
			Why: "HD-01, HD-01p: a copy's start around the declared delay, within this"},
		{Name: "hedging cancel slack", Value: cfg.cancelSlack(h).String(),
			Why: fmt.Sprintf("HD-04, HD-01p: a loser let go after the winner's answer, within %d× the hedging slack (the target reads the answer, cancels the loser, closes its connection)", cancelSlackFactor)},
		{Name: "hedging hold", Value: cfg.hold(p.Delay).String(),
			Why: "HD-01, HD-04, HD-05: how long the first copy of a call is held for the target to hedge it"},
	}
	if p.Declared() {
		out = append(out, reports.Tolerance{Name: "HD-03 hedged copies", Value: fmt.Sprintf("max(⌊%s·n/(1−budget)⌋, %d) + 2 for the n of %d requests held together that reach the dependency", budgetText(p), budgetFloor, cfg.concurrent()),
			Why: "HD-03: the budget as a share of copies in flight (failsafe-go's count), at least the 3 hedges a budget always allows (failsafe-go's minimum concurrency), plus 2 copies started in the same instant"})
	}
	return out
}

// budgetText renders the declared budget or its default.
func budgetText(p check.HedgingPolicy) string {
	if p.Budget > 0 {
		return fmt.Sprintf("%.2f (declared)", p.Budget)
	}
	return "0.10 (not declared: the SRE book's 10 % retry budget)"
}

// copiesText renders the declared copy cap or its default.
func copiesText(p check.HedgingPolicy) string {
	if p.MaxCopies > 0 {
		return fmt.Sprintf("%d (declared)", p.MaxCopies)
	}
	return "2 (not declared: one hedge)"
}

// slack is the least time slack the suite's timed checks judge with.
func slack(h *check.Harness) time.Duration { return config(h).tolerance(h) }

// Suite is the hedging suite with cfg as its settings; the zero Config means
// the documented defaults.
func Suite(cfg Config) check.Suite {
	return check.Suite{Name: Name, Checks: checks(), Tolerances: tolerances, Slack: slack, Config: cfg,
		Blame: []check.BlameRule{check.BlameResends, check.BlameCalls}}
}
