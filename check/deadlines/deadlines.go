package deadlines

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/headers"
	"github.com/resilcheck/resilcheck/reports"
)

const (
	Name     = "deadlines"
	sreDL    = "Google SRE book ch. 22 \"Addressing Cascading Failures\""
	grpcDL   = "grpc.io \"Deadlines\""
	grpcWire = "github.com/grpc/grpc/doc/PROTOCOL-HTTP2.md"
	envoyDL  = "Envoy router filter docs"
)

// Config tunes the deadlines suite. Zero values mean the documented
// defaults, each with the reason on its field.
type Config struct {
	// TimeoutStatus is the status the target answers when a caller's budget
	// runs out; 0 means 504 Gateway Timeout (HS-18).
	TimeoutStatus int
	// Tolerance is the slack on every deadline bound; 0 means 200 ms. It is
	// wider than the harness tolerance because a deadline is enforced by
	// every hop's timers (a gateway's and a service's, say), and the
	// journal's timestamps include both proxies' scheduling on a busy machine.
	// Budgets drawn below are many tolerances apart from the defects' timings.
	Tolerance time.Duration
	// MinBudget and MaxBudget bound the budgets the checks send while the
	// dependency hangs; 0 means 300 ms and 700 ms. The lower bound must leave
	// the target time to reach its dependency.
	MinBudget, MaxBudget time.Duration
	// Watch is how long DL-06 keeps watching the dependency after the
	// deadline, to catch a target that retries in the background; 0 means
	// the declared backoff's first wait plus 3 tolerances (the call fails 2
	// tolerances after the deadline, a retry follows within that wait), or,
	// with no backoff declared, 1.2 s: gRPC's connection backoff (1 s
	// initial, ±20 % jitter) retries within it.
	Watch time.Duration
	// Formats narrows the deadline headers DL-04 sends budgets in, one check
	// per format: Conventions.DeadlineHeader (DL-04), grpc-timeout (DL-04g)
	// and x-envoy-upstream-rq-timeout-ms (DL-04e), each only when the target
	// declares it reads it (Policy.DeadlineHeaders). Empty means no narrowing.
	Formats []string
	// Warmup is how many consecutive successful requests each check sends
	// before it starts, so a circuit breaker opened by earlier checks has
	// closed and its retry throttle refilled; 0 means the heal streak
	// derived from the declared budget ratio (RetryPolicy.healStreak),
	// negative disables it.
	Warmup int
}

func (c Config) timeoutStatus() int {
	return cmp.Or(c.TimeoutStatus, http.StatusGatewayTimeout)
}

func (c Config) tolerance() time.Duration {
	return check.OrDuration(c.Tolerance, 200*time.Millisecond)
}

func (c Config) budgets() (lo, hi time.Duration) {
	lo, hi = check.OrDuration(c.MinBudget, 300*time.Millisecond), check.OrDuration(c.MaxBudget, 700*time.Millisecond)
	return lo, max(hi, lo+time.Millisecond)
}

// watch returns DL-06's watch window and what it was derived from.
func (c Config) watch(h *check.Harness) (time.Duration, string) {
	if c.Watch > 0 {
		return c.Watch, "deadlines.Config.Watch"
	}
	if _, hi, ok := h.Policy.Retry.WaitBounds(0); ok {
		return hi + 3*c.tolerance(), "the declared backoff's first wait + 3 tolerances"
	}
	return 1200 * time.Millisecond, "no backoff declared: gRPC's connection backoff retries within 1.2 s; a later retry goes unseen"
}

func (c Config) warmup(h *check.Harness) int {
	switch {
	case c.Warmup < 0:
		return 0
	case c.Warmup == 0:
		return h.Policy.Retry.HealStreak()
	}
	return c.Warmup
}

// sendsFormat reports whether DL-04 is to exercise the deadline header name.
func (c Config) sendsFormat(name string) bool {
	if len(c.Formats) == 0 {
		return true
	}
	return slices.ContainsFunc(c.Formats, func(f string) bool { return http.CanonicalHeaderKey(f) == http.CanonicalHeaderKey(name) })
}

// Deadlines returns the deadline suite: budgets
// sent while the dependency hangs, and what the target does with them.
func checks() []check.Check {
	return []check.Check{
		{ID: "HS-18", Suite: Name, Timed: true, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedDependency}, Source: "RFC 9110 §15.6.5; " + grpcDL + " (Deadlines on the Server)",
			Title: "with the dependency hanging, the target answers 504 by the caller's budget", Run: dlAnswersByBudget},
		{ID: "DL-03", Suite: Name, Timed: true, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedDependency}, Source: grpcDL + " (Deadlines on the Server); " + grpcWire + " (Client Cancellation)",
			Title: "the target cancels its dependency call when the caller's budget runs out", Run: dlCancelsAtDeadline},
		{ID: "DL-03p", Suite: Name, Takes: dlExplore, Explores: true, Timed: true, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedDependency}, Source: grpcDL + " (Deadlines on the Server, Deadline Propagation); " + sreDL + " (a property over random budgets, deadline headers and dependency latencies)",
			Title: "for random budgets, deadline headers and dependency latencies (late headers, a trickling body, a hang): answered, every dependency call started and let go, by the budget; the forwarded budget never more than what is left", Run: deadlineProperty},
		{ID: "DL-04", Suite: Name, Timed: true, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedDependency}, Source: grpcDL + " (Deadline Propagation); " + sreDL + " (Deadline propagation)",
			Title: "the budget passed downstream is what was received minus what was spent (the target's deadline header)", Run: dlPropagates(dlConventionFormat)},
		{ID: "DL-04g", Suite: Name, Timed: true, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedDependency, check.NeedDeadlineHeader(headers.GRPCTimeout)}, Source: grpcWire + " (Requests: grpc-timeout); " + grpcDL + " (Deadline Propagation)",
			Title: "a budget sent as grpc-timeout is honoured and passed downstream with the elapsed time deducted", Run: dlPropagates(headers.GRPCTimeout)},
		{ID: "DL-04e", Suite: Name, Timed: true, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedDependency, check.NeedDeadlineHeader(headers.EnvoyUpstreamRqMs)}, Source: envoyDL + " (x-envoy-upstream-rq-timeout-ms, x-envoy-expected-rq-timeout-ms); " + grpcDL + " (Deadline Propagation)",
			Title: "a budget sent as x-envoy-upstream-rq-timeout-ms is honoured and passed downstream with the elapsed time deducted", Run: dlPropagates(headers.EnvoyUpstreamRqMs)},
		{ID: "DL-06", Suite: Name, Takes: 1500 * time.Millisecond, Timed: true, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedDependency}, Source: sreDL + " (Missing deadlines)",
			Title: "no dependency call starts after the caller's deadline, even when calls fail and could be retried", Run: dlNoWorkAfterDeadline},
		{ID: "DL-06b", Suite: Name, Timed: true, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedDependency}, Source: sreDL + " (Missing deadlines)",
			Title: "a request whose budget is already spent gets an immediate 504 and causes no dependency call", Run: dlExpiredBudget},
		{ID: "DL-07", Suite: Name, Timed: true, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedDependency}, Source: sreDL + " (Cancellation propagation); " + grpcWire + " (Client Cancellation)",
			Title: "a caller that disconnects cancels the target's dependency call", Run: dlCancelsOnDisconnect},
		{ID: "HS-18b", Suite: Name, Takes: 2 * time.Second, Timed: true, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedDependency}, Source: "RFC 9110 §15.6.5; connectrpc.com protocol (Unary-Request: servers may clamp a timeout)",
			Title: "with no budget and the dependency hanging, the target still answers (504, or 503 giving up on its dependency) within its maximum budget", Run: dlAnswersWithoutBudget},
	}
}

// dlWatchText renders DL-06's watch window and its origin.
func dlWatchText(h *check.Harness) string {
	d, why := config(h).watch(h)
	return fmt.Sprintf("%s (%s)", d, why)
}

// tolerances are the deadline suite's thresholds.
func tolerances(h *check.Harness) []reports.Tolerance {
	out := []reports.Tolerance{
		{Name: "DL-06 watch after the deadline", Value: dlWatchText(h),
			Why: "DL-06: how long a retry after the deadline is looked for"},
		{Name: "deadline slack", Value: max(config(h).tolerance(), h.Noise.Slack()).String(),
			Why: "DL-03, DL-04, DL-06, HS-18: answers, cancellations and budgets within the deadline plus this"},
	}
	if config(h).Warmup != 0 {
		out = append(out, reports.Tolerance{Name: "heal streak, deadline checks", Value: fmt.Sprintf("%d (deadlines.Config.Warmup)", config(h).warmup(h)),
			Why: "before the deadline checks, in place of the heal streak"})
	}
	return out
}

// slack is the least time slack the deadline checks judge with.
func slack(h *check.Harness) time.Duration { return config(h).tolerance() }

// Suite is the deadline suite with cfg as its settings; the zero Config means the
// documented defaults.
func Suite(cfg Config) check.Suite {
	return check.Suite{Name: Name, Checks: checks(), Tolerances: tolerances, Slack: slack, Config: cfg,
		Blame: []check.BlameRule{check.BlameResends, check.BlameCancel, check.BlameBudget, check.BlameCalls}}
}

// config is the settings of h's suite (the zero Config, the documented
// defaults, when h's suites do not hold it).
func config(h *check.Harness) Config { return check.SuiteConfig[Config](h, Name) }
