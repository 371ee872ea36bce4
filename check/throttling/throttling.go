package throttling

import (
	"cmp"
	"fmt"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/reports"
)

const (
	// Name is the suite's name.
	Name = "throttling"
	sre  = "Google SRE book ch. 21 \"Handling Overload\" (Client-Side Throttling, Eq. 21-1)"
	fsgo = "failsafe-go.dev \"Adaptive Throttler\""
)

// Config tunes the throttling suite. Zero values mean the documented
// defaults, each with its reason. What the target declares (K, the
// rejection cap, the recovery) comes from Harness.Policy, never from here.
type Config struct {
	// Rate is the least rate, in requests per second, the checks offer; each
	// case draws its own in [Rate, 1.25·Rate) [30: enough calls per second
	// that a throttler's history holds a few dozen of them, and below the
	// 50 per second per tenant a gateway commonly allows, with the load
	// spread over 8 tenants].
	Rate float64
	// Warmup is how long the dependency refuses before TH-01 counts, so the
	// throttler's history holds refusals only [the declared recovery, within
	// [1 s, MaxWarmup]: a history that forgets refusals within the recovery
	// forgets the accepts before them as soon; 2 s when none is declared].
	Warmup time.Duration
	// MaxWarmup bounds the derived warm-up [10 s: a longer declared recovery
	// is reported, the check then judges a history that may still hold
	// accepts from before the refusals, which only lets more calls through].
	MaxWarmup time.Duration
	// Window is how long TH-01 counts, and how long TH-02 watches once the
	// declared recovery has passed [2 s: 60 requests or more at the default
	// rate].
	Window time.Duration
	// Share and Floor are TH-01's tolerance: Share of the requests plus
	// Floor calls above what Eq. 21-1 and the cap let through (throttledLimit)
	// [0.1 and 5: a rejection drawn at random spreads binomially, and a
	// throttler counts its history with a +1 (Eq. 21-1's denominator) that
	// lets a few calls more through than the cap says].
	Share float64
	Floor int
	// Miss is the share of TH-02's requests that may still fail to reach
	// the dependency once the declared recovery has passed [0.1: RB-05's
	// "at least 90 % succeed" after a breaker's recovery].
	Miss float64
	// Tolerance is the time slack on the declared recovery [500 ms: the
	// journal's timestamps and a throttler's history buckets (failsafe-go
	// ages its history in twentieths) both lag a little].
	Tolerance time.Duration
}

func (c Config) rate() float64            { return check.OrFloat(c.Rate, 30) }
func (c Config) maxWarmup() time.Duration { return check.OrDuration(c.MaxWarmup, 10*time.Second) }
func (c Config) window() time.Duration    { return check.OrDuration(c.Window, 2*time.Second) }
func (c Config) share() float64           { return check.OrFloat(c.Share, 0.1) }
func (c Config) floor() int               { return cmp.Or(c.Floor, 5) }
func (c Config) miss() float64            { return check.OrFloat(c.Miss, 0.1) }
func (c Config) tolerance() time.Duration { return check.OrDuration(c.Tolerance, 500*time.Millisecond) }
func (c Config) slack(h *check.Harness) time.Duration {
	return max(c.tolerance(), h.Slack())
}

// warmup returns TH-01's warm-up and where it comes from.
func (c Config) warmup(h *check.Harness) (time.Duration, string) {
	if c.Warmup > 0 {
		return c.Warmup, "throttling.Config.Warmup"
	}
	r := h.Policy.Throttling.Recovery
	switch {
	case r <= 0:
		return 2 * time.Second, "no recovery declared"
	case r > c.maxWarmup():
		return c.maxWarmup(), fmt.Sprintf("the declared recovery %s, cut to throttling.Config.MaxWarmup", r)
	}
	return max(r, time.Second), "the declared recovery, at least 1 s"
}

// NeedThrottling: the target declares client-side throttling.
var NeedThrottling = check.Need{Name: "throttling",
	Doc: "the target declares adaptive client-side throttling of its dependency calls (policy.throttling.k)",
	Unmet: func(h *check.Harness) string {
		if !h.Policy.Throttling.Declared() {
			return "the target declares no client-side throttling (policy.throttling)"
		}
		return ""
	}}

// NeedThrottlingRecovery: the target declares how soon it recovers.
var NeedThrottlingRecovery = check.Need{Name: "throttling recovery",
	Doc: "the target declares how soon calls reach a healed dependency again (policy.throttling.recovery)",
	Unmet: func(h *check.Harness) string {
		if h.Policy.Throttling.Recovery <= 0 {
			return "the target declares no throttling recovery (policy.throttling.recovery)"
		}
		return ""
	}}

func checks() []check.Check {
	return []check.Check{
		{ID: "TH-01", Suite: Name, Takes: 7 * time.Second, Timed: true, Level: reports.LevelRecommended,
			Needs:  []check.Need{check.NeedDependency, NeedThrottling},
			Source: sre + "; " + fsgo,
			Title:  "while the dependency refuses most calls (429, out of quota) for a sustained period, the calls reaching it fall to what Eq. 21-1 lets through (about K × the calls it accepts), not the offered load", Run: refusedLoad},
		{ID: "TH-02", Suite: Name, Takes: 10 * time.Second, Timed: true, Level: reports.LevelRecommended,
			Needs:  []check.Need{check.NeedDependency, NeedThrottling, NeedThrottlingRecovery},
			Source: sre + "; " + fsgo,
			Title:  "once the dependency stops refusing, calls reach it at the offered rate again within the declared recovery", Run: recovery},
	}
}

// tolerances are the throttling suite's thresholds.
func tolerances(h *check.Harness) []reports.Tolerance {
	c, p := config(h), h.Policy.Throttling
	w, why := c.warmup(h)
	out := []reports.Tolerance{
		{Name: "throttled calls", Value: fmt.Sprintf("≤ max(K·accepts, √(K·accepts·requests·a)) + (1 − %s)·requests·a + %.2f·requests + %d, K = %s, a = %s", rejectionText(p), c.share(), c.floor(), kText(p), h.Policy.Retry.AttemptsText()),
			Why: "TH-01: Eq. 21-1 with the declared K and max_rejection, counted over requests (the SRE book) or over the calls made (failsafe-go), each attempt a request; then a binomial spread and the formula's +1"},
		{Name: "throttling warm-up", Value: fmt.Sprintf("%s (%s)", w, why),
			Why: "TH-01: the dependency refuses this long before calls are counted, so the throttler's history holds refusals only"},
		{Name: "throttling window", Value: c.window().String(),
			Why: "TH-01: how long calls are counted; TH-02: how long calls are watched once the recovery has passed"},
		{Name: "throttling recovery", Value: recoveryText(p, c.slack(h)),
			Why: fmt.Sprintf("TH-02: policy.throttling.recovery plus the slack; then at least %.0f %% of requests reach the dependency", 100*(1-c.miss())),
		},
	}
	return out
}

func kText(p check.ThrottlingPolicy) string {
	if !p.Declared() {
		return "K (not declared)"
	}
	return fmt.Sprintf("%g", p.K)
}

func rejectionText(p check.ThrottlingPolicy) string {
	if p.MaxRejection > 0 {
		return fmt.Sprintf("%g", p.MaxRejection)
	}
	return "1 (no cap declared)"
}

func recoveryText(p check.ThrottlingPolicy, slack time.Duration) string {
	if p.Recovery <= 0 {
		return "not declared"
	}
	return fmt.Sprintf("%s + %s (declared + slack)", p.Recovery, slack)
}

// slack is the least time slack the throttling checks judge with.
func slack(h *check.Harness) time.Duration { return config(h).tolerance() }

// Suite is the throttling suite with cfg as its settings; the zero Config
// means the documented defaults.
func Suite(cfg Config) check.Suite {
	return check.Suite{Name: Name, Checks: checks(), Tolerances: tolerances, Slack: slack, Config: cfg,
		Blame: []check.BlameRule{check.BlameResends, check.BlameCalls}}
}

// config is the settings of h's suite (the zero Config, the documented
// defaults, when h's suites do not hold it).
func config(h *check.Harness) Config { return check.SuiteConfig[Config](h, Name) }
