package ratelimit

import (
	"fmt"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/reports"
)

const (
	Name     = "rate-limit-headers"
	rlSource = "draft-ietf-httpapi-ratelimit-headers-10"
)

// Config tunes the rate-limit-headers suite. Zero values mean the
// documented defaults.
type Config struct {
	// AcceptOlderDrafts accepts the -07 Dictionary and ≤ -06 separate fields
	// (reported as such); the zero value holds the target to draft -10.
	AcceptOlderDrafts bool
	// MaxRate caps the load rate of RL-01q in requests per second; a policy
	// whose doubled rate exceeds it is skipped. Default 400.
	MaxRate float64
	// MaxLoad caps RL-01q's load duration; a window too long to count
	// several of within it is skipped. Default 8 s.
	MaxLoad time.Duration
	// QuotaSlack is the share of q a window's admissions may fall short of
	// it in RL-01q ("not much less"). Default 0.2.
	QuotaSlack float64
	// RatioFactor is how far r/t may exceed q/w before RL-18 fails. Default 10.
	RatioFactor float64
}

func (c Config) maxRate() float64 { return check.OrFloat(c.MaxRate, 400) }

func (c Config) maxLoad() time.Duration {
	if c.MaxLoad > 0 {
		return c.MaxLoad
	}
	return 8 * time.Second
}

func (c Config) quotaSlack() float64  { return check.OrFloat(c.QuotaSlack, 0.2) }
func (c Config) ratioFactor() float64 { return check.OrFloat(c.RatioFactor, 10) }

// RateLimitHeaders returns the rate-limit-headers suite. Behaviour checks
// come first, so the scans that follow judge every response the run
// produced, 429s included. The behaviour checks drive the declared probe
// (Policy.RateLimitProbe), or else the first rate-limited operation with
// fresh keys; RL-01 and RL-07 require the fields on the declared routes
// only; the other scans judge whatever fields the target shows.
func checks() []check.Check {
	return []check.Check{
		{ID: "RL-07b", Suite: Name, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedRateLimitedRoute}, Source: rlSource + " §4.1.1, §6",
			Title: "a sequential client sees remaining never negative, never rising within a window, and no 429 after r>0", Run: sequentialRemaining},
		{ID: "RL-01q", Suite: Name, Takes: 5 * time.Second, Timed: true, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedRateLimitedRoute}, Source: rlSource + " §3.1.1, §3.1.3",
			Title: "the quota enforced is the quota advertised: at twice the rate, admissions per window match q", Run: enforcedQuota},
		{ID: "RL-09b", Suite: Name, Takes: time.Second, Timed: true, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedRateLimitedRoute}, Source: rlSource + " §4.1.2, §6; RFC 9110 §10.2.3",
			Title: "once the advertised reset has passed, requests are admitted again", Run: admittedAfterReset},
		{ID: "HS-05", Suite: Name, Level: reports.LevelShould, Needs: []check.Need{check.NeedRateLimitedRoute}, Source: "RFC 6585 §4",
			Title: "a 429 explains itself in a non-empty body", Run: tooManyBody},
		{ID: "RL-20", Suite: Name, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedRateLimitedRoute, check.NeedTenancy}, Source: rlSource + " §6.1",
			Title: "one tenant exhausting its quota does not limit another", Run: tenantIsolation},
		{ID: "RL-07p", Suite: Name, Takes: rlExplore, Explores: true, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedRateLimitedRoute}, Source: rlSource + " §4.1.1, §4.1.2, §6, §6.1 (a property over tenants' bursts, pauses and resets)",
			Title: "over random interleavings of tenants' bursts and pauses, r never rises before its reset, a 429 follows only r=0, the reset admits again, and one tenant's use never counts against another", Run: rateLimitProperty},
		{ID: "RL-01", Suite: Name, RunWide: true, Level: reports.LevelMust, Needs: []check.Need{check.NeedRateLimitedRoute}, Source: rlSource + " §3, §3.1, §3.1.1",
			Title: "every response of a declared rate-limited route carries RateLimit-Policy: a List of String names, each with q a non-negative Integer", Run: policySyntax},
		{ID: "RL-02", Suite: Name, RunWide: true, Level: reports.LevelMust, Source: rlSource + " §3.1.3",
			Title: "policy windows w are non-zero, non-negative Integers of seconds", Run: policyWindow},
		{ID: "RL-03", Suite: Name, RunWide: true, Level: reports.LevelMust, Source: rlSource + " §3.1.2, §10.3",
			Title: "quota units qu are registered Strings", Run: policyUnit},
		{ID: "RL-04", Suite: Name, RunWide: true, Level: reports.LevelMust, Source: rlSource + " §3.1.4, §4.1.3",
			Title: "partition keys pk are Byte Sequences", Run: partitionKeys},
		{ID: "RL-07", Suite: Name, RunWide: true, Level: reports.LevelMust, Needs: []check.Need{check.NeedRateLimitedRoute}, Source: rlSource + " §4, §4.1.1, §4.1.2",
			Title: "every response of a declared rate-limited route carries RateLimit: named items with r a non-negative Integer and t delay-seconds, not an epoch", Run: limitSyntax},
		{ID: "RL-08", Suite: Name, RunWide: true, Level: reports.LevelShould, Source: rlSource + " §3",
			Title: "a tenant's RateLimit-Policy stays the same across responses", Run: policyStable},
		{ID: "RL-18", Suite: Name, RunWide: true, Level: reports.LevelShould, Source: rlSource + " §6, §8.5",
			Title: "r/t does not advertise far more than q/w", Run: ratioBound},
		{ID: "RL-21", Suite: Name, RunWide: true, Level: reports.LevelConvention, Source: "GitHub Docs, Rate limits for the REST API",
			Title: "a 429 carries X-RateLimit-Remaining: 0", Run: legacyExhausted},
		{ID: "RL-22", Suite: Name, RunWide: true, Level: reports.LevelConvention, Source: rlSource + " appendix \"RateLimit header fields currently used on the web\"",
			Title: "X-RateLimit-* values parse, and the reset's interpretation is reported", Run: legacySyntax},
		{ID: "RL-24", Suite: Name, RunWide: true, Level: reports.LevelConvention, Source: rlSource + " §4.1.1, §4.1.2 and appendix \"RateLimit header fields currently used on the web\" (the legacy fields name the same quota)",
			Title: "X-RateLimit-* and RateLimit describe the same quota", Run: legacyAgrees},
	}
}

// tolerances are the rate-limit suite's thresholds.
func tolerances(h *check.Harness) []reports.Tolerance {
	return []reports.Tolerance{{Name: "quota slack", Value: fmt.Sprintf("%.0f %% per window", config(h).quotaSlack()*100),
		Why: "RL-01q: admissions at twice the advertised rate within q minus this"}}
}

// Suite is the rate-limit-header suite with cfg as its settings; the zero Config means the
// documented defaults.
func Suite(cfg Config) check.Suite {
	return check.Suite{Name: Name, Checks: checks(), Tolerances: tolerances, Config: cfg,
		Blame: []check.BlameRule{check.BlameLimiter, check.BlameAnswer}}
}

// config is the settings of h's suite (the zero Config, the documented
// defaults, when h's suites do not hold it).
func config(h *check.Harness) Config {
	return check.SuiteConfig[Config](h, Name)
}
