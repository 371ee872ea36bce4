package ratelimit

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/headers"
)

// scan is a check that judges every response seen in the run.
type scan struct {
	want    string
	applies func(check.Observation) bool   // the responses the rule concerns
	judge   func(check.Observation) string // "" when the response obeys the rule
	none    string                         // skip reason when no response applies
	prepare func(ctx context.Context, c *check.Case)
	summary func(applied []check.Observation) string // extra observed text; may be nil
	// exempt, when set, says why the rule does not apply to this target at
	// all, judged on everything seen; "" when it does.
	exempt func(h *check.Harness, seen []check.Observation) string
}

// maxCounterexamples bounds the violations a scan lists.
const maxCounterexamples = 10

func runScan(ctx context.Context, c *check.Case, s scan) check.Result {
	if s.prepare != nil {
		s.prepare(ctx, c)
	}
	var bad []check.Observation
	var why []string
	seen := seenResponses(ctx, c)
	if s.exempt != nil {
		if reason := s.exempt(c.Harness, seen); reason != "" {
			return check.NotApplicable("%s", reason)
		}
	}
	// seen is this call's own slice and is not read again: the responses
	// the rule concerns are kept in place, in order, rather than copied (a
	// run's scans read tens of thousands of responses each).
	applied := seen[:0]
	for _, o := range seen {
		if !s.applies(o) {
			continue
		}
		applied = append(applied, o)
		if msg := s.judge(o); msg != "" {
			bad = append(bad, o)
			why = append(why, fmt.Sprintf("%s (%d, tenant %s): %s", o.Source, o.Status, o.Tenant, msg))
		}
	}
	if len(applied) == 0 {
		return check.NotApplicable("%s", s.none)
	}
	extra := ""
	if s.summary != nil {
		extra = "; " + s.summary(applied)
	}
	if len(bad) > 0 {
		r := check.Fail(s.want, fmt.Sprintf("%d of %d responses break it, first: %s%s", len(bad), len(applied), why[0], extra), entriesOf(bad)...)
		r.Counterexample = why[:min(len(why), maxCounterexamples)]
		return r
	}
	return check.Pass(s.want, fmt.Sprintf("all %d responses seen obey it%s", len(applied), extra), lastEntries(applied, 10)...)
}

// lastEntries returns the last n journal entries behind obs (those of own
// replies, which have none, skipped), oldest first: the tail of
// entriesOf(obs), without copying the entries before it.
func lastEntries(obs []check.Observation, n int) []faults.Entry {
	i, k := len(obs), 0
	for i > 0 && k < n {
		i--
		if obs[i].Entry != nil {
			k++
		}
	}
	return entriesOf(obs[i:])
}

// ruleViolations renders the violations of rule found on the response.
func ruleViolations(o check.Observation, rule string, fields ...string) string {
	var msgs []string
	for _, v := range headers.Violations(o.FieldsErr) {
		if v.Rule == rule && (len(fields) == 0 || slices.Contains(fields, v.Field)) {
			msgs = append(msgs, fmt.Sprintf("%s: %s = %q", v.Msg, v.Field, v.Value))
		}
	}
	return strings.Join(msgs, "; ")
}

func hasField(o check.Observation, name string) bool { return len(o.Header.Values(name)) > 0 }

// onLimitedRoute selects the responses of the declared rate-limited routes.
func onLimitedRoute(o check.Observation) bool { return o.Limited }

func policySyntax(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	return runScan(ctx, c, scan{applies: onLimitedRoute, exempt: draft10Exemption,
		want: "RateLimit-Policy on every response of a declared rate-limited route, a non-empty List of String-named policies each with q a non-negative Integer",
		judge: func(o check.Observation) string {
			if !hasField(o, headers.RateLimitPolicy) {
				return "no RateLimit-Policy field"
			}
			if msg := ruleViolations(o, "RL-01", headers.RateLimitPolicy); msg != "" {
				return msg
			}
			if ps := o.Fields.Policies; len(ps) > 0 && ps[0].Form != headers.FormDraft10 && !config(h).AcceptOlderDrafts {
				return fmt.Sprintf("the %s form %q; draft -10 names each policy", ps[0].Form, o.Header.Get(headers.RateLimitPolicy))
			}
			return ""
		},
		none: "no response of a declared rate-limited route was seen",
		summary: func(obs []check.Observation) string {
			return "policy " + distinct(obs, func(o check.Observation) string { return o.Header.Get(headers.RateLimitPolicy) })
		}})
}

func policyWindow(ctx context.Context, c *check.Case) check.Result {
	return runScan(ctx, c, scan{applies: hasPolicy,
		want:  "every w parameter a non-zero, non-negative Integer",
		judge: func(o check.Observation) string { return ruleViolations(o, "RL-02") },
		none:  "no response carried RateLimit-Policy (RL-01 reports the absence)"})
}

func policyUnit(ctx context.Context, c *check.Case) check.Result {
	return runScan(ctx, c, scan{applies: hasPolicy,
		want:  `every qu a registered String: "requests", "content-bytes" or "concurrent-requests"`,
		judge: func(o check.Observation) string { return ruleViolations(o, "RL-03") },
		none:  "no response carried RateLimit-Policy (RL-01 reports the absence)",
		summary: func(obs []check.Observation) string {
			return "units " + distinct(obs, func(o check.Observation) string {
				var us []string
				for _, p := range o.Fields.Policies {
					us = append(us, p.Unit)
				}
				return strings.Join(us, ",")
			})
		}})
}

func partitionKeys(ctx context.Context, c *check.Case) check.Result {
	return runScan(ctx, c, scan{applies: func(o check.Observation) bool { return hasPolicy(o) || hasField(o, headers.RateLimit) },
		want:  "every pk parameter a Byte Sequence (:base64:)",
		judge: func(o check.Observation) string { return ruleViolations(o, "RL-04") },
		none:  "no response carried RateLimit-Policy or RateLimit (RL-01 and RL-07 report the absence)"})
}

func limitSyntax(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	return runScan(ctx, c, scan{applies: onLimitedRoute, exempt: draft10Exemption,
		want: "RateLimit on every response of a declared rate-limited route: String-named items, r a non-negative Integer, t non-negative delay-seconds ≤ 10⁹",
		judge: func(o check.Observation) string {
			if !o.Advertises() || (!hasField(o, headers.RateLimit) && !hasField(o, headers.RateLimitRemaining)) {
				return "no RateLimit field"
			}
			if msg := ruleViolations(o, "RL-07"); msg != "" {
				return msg
			}
			if f := o.Fields.Form; f != headers.FormDraft10 && !config(h).AcceptOlderDrafts {
				return fmt.Sprintf("the %s form; draft -10 requires a List of named items", f)
			}
			return ""
		},
		none: "no response of a declared rate-limited route was seen",
		summary: func(obs []check.Observation) string {
			return "forms " + distinct(obs, func(o check.Observation) string { return string(o.Fields.Form) })
		}})
}

func hasPolicy(o check.Observation) bool { return hasField(o, headers.RateLimitPolicy) }

// distinct renders the distinct values of key over obs with their counts.
func distinct(obs []check.Observation, key func(check.Observation) string) string {
	counts := map[string]int{}
	var order []string
	for _, o := range obs {
		k := key(o)
		if counts[k] == 0 {
			order = append(order, k)
		}
		counts[k]++
	}
	parts := make([]string, 0, len(order))
	for i, k := range order {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("… %d more", len(order)-5))
			break
		}
		parts = append(parts, fmt.Sprintf("%q ×%d", k, counts[k]))
	}
	return strings.Join(parts, ", ")
}
