package suites

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/headers"
)

// scan is a check that judges every response seen in the run.
type scan struct {
	want    string
	applies func(rlObs) bool   // the responses the rule concerns
	judge   func(rlObs) string // "" when the response obeys the rule
	none    string             // skip reason when no response applies
	prepare func(ctx context.Context, c *Case)
	summary func(applied []rlObs) string // extra observed text; may be nil
	// exempt, when set, says why the rule does not apply to this target at
	// all, judged on everything seen; "" when it does.
	exempt func(seen []rlObs) string
}

// maxCounterexamples bounds the violations a scan lists.
const maxCounterexamples = 10

func (c *Case) runScan(ctx context.Context, s scan) Result {
	if s.prepare != nil {
		s.prepare(ctx, c)
	}
	var applied, bad []rlObs
	var why []string
	seen := c.seen(ctx)
	if s.exempt != nil {
		if reason := s.exempt(seen); reason != "" {
			return notApplicable("%s", reason)
		}
	}
	for _, o := range seen {
		if !s.applies(o) {
			continue
		}
		applied = append(applied, o)
		if msg := s.judge(o); msg != "" {
			bad = append(bad, o)
			why = append(why, fmt.Sprintf("%s (%d, tenant %s): %s", o.source, o.status, o.tenant, msg))
		}
	}
	if len(applied) == 0 {
		return notApplicable("%s", s.none)
	}
	extra := ""
	if s.summary != nil {
		extra = "; " + s.summary(applied)
	}
	if len(bad) > 0 {
		r := fail(s.want, fmt.Sprintf("%d of %d responses break it, first: %s%s", len(bad), len(applied), why[0], extra), entriesOf(bad)...)
		r.Counterexample = why[:min(len(why), maxCounterexamples)]
		return r
	}
	return pass(s.want, fmt.Sprintf("all %d responses seen obey it%s", len(applied), extra), lastEntries(applied, 10)...)
}

// lastEntries returns the journal entries of the last n observations.
func lastEntries(obs []rlObs, n int) []faults.Entry {
	ev := entriesOf(obs)
	return ev[max(0, len(ev)-n):]
}

// ruleViolations renders the violations of rule found on the response.
func (o rlObs) ruleViolations(rule string, fields ...string) string {
	var msgs []string
	for _, v := range headers.Violations(o.fieldsErr) {
		if v.Rule == rule && (len(fields) == 0 || slices.Contains(fields, v.Field)) {
			msgs = append(msgs, fmt.Sprintf("%s: %s = %q", v.Msg, v.Field, v.Value))
		}
	}
	return strings.Join(msgs, "; ")
}

func (o rlObs) has(name string) bool { return len(o.header.Values(name)) > 0 }

// onLimitedRoute selects the responses of the declared rate-limited routes.
func onLimitedRoute(o rlObs) bool { return o.limited }

func policySyntax(ctx context.Context, c *Case) Result {
	h := c.h
	return c.runScan(ctx, scan{applies: onLimitedRoute, exempt: h.draft10Exempt,
		want: "RateLimit-Policy on every response of a declared rate-limited route, a non-empty List of String-named policies each with q a non-negative Integer",
		judge: func(o rlObs) string {
			if !o.has(headers.RateLimitPolicy) {
				return "no RateLimit-Policy field"
			}
			if msg := o.ruleViolations("RL-01", headers.RateLimitPolicy); msg != "" {
				return msg
			}
			if ps := o.fields.Policies; len(ps) > 0 && ps[0].Form != headers.FormDraft10 && !h.RateLimits.AcceptOlderDrafts {
				return fmt.Sprintf("the %s form %q; draft -10 names each policy", ps[0].Form, o.header.Get(headers.RateLimitPolicy))
			}
			return ""
		},
		none: "no response of a declared rate-limited route was seen",
		summary: func(obs []rlObs) string {
			return "policy " + distinct(obs, func(o rlObs) string { return o.header.Get(headers.RateLimitPolicy) })
		}})
}

func policyWindow(ctx context.Context, c *Case) Result {
	return c.runScan(ctx, scan{applies: hasPolicy,
		want:  "every w parameter a non-zero, non-negative Integer",
		judge: func(o rlObs) string { return o.ruleViolations("RL-02") },
		none:  "no response carried RateLimit-Policy (RL-01 reports the absence)"})
}

func policyUnit(ctx context.Context, c *Case) Result {
	return c.runScan(ctx, scan{applies: hasPolicy,
		want:  `every qu a registered String: "requests", "content-bytes" or "concurrent-requests"`,
		judge: func(o rlObs) string { return o.ruleViolations("RL-03") },
		none:  "no response carried RateLimit-Policy (RL-01 reports the absence)",
		summary: func(obs []rlObs) string {
			return "units " + distinct(obs, func(o rlObs) string {
				var us []string
				for _, p := range o.fields.Policies {
					us = append(us, p.Unit)
				}
				return strings.Join(us, ",")
			})
		}})
}

func partitionKeys(ctx context.Context, c *Case) Result {
	return c.runScan(ctx, scan{applies: func(o rlObs) bool { return hasPolicy(o) || o.has(headers.RateLimit) },
		want:  "every pk parameter a Byte Sequence (:base64:)",
		judge: func(o rlObs) string { return o.ruleViolations("RL-04") },
		none:  "no response carried RateLimit-Policy or RateLimit (RL-01 and RL-07 report the absence)"})
}

func limitSyntax(ctx context.Context, c *Case) Result {
	h := c.h
	return c.runScan(ctx, scan{applies: onLimitedRoute, exempt: h.draft10Exempt,
		want: "RateLimit on every response of a declared rate-limited route: String-named items, r a non-negative Integer, t non-negative delay-seconds ≤ 10⁹",
		judge: func(o rlObs) string {
			if !o.advertises() || (!o.has(headers.RateLimit) && !o.has(headers.RateLimitRemaining)) {
				return "no RateLimit field"
			}
			if msg := o.ruleViolations("RL-07"); msg != "" {
				return msg
			}
			if f := o.fields.Form; f != headers.FormDraft10 && !h.RateLimits.AcceptOlderDrafts {
				return fmt.Sprintf("the %s form; draft -10 requires a List of named items", f)
			}
			return ""
		},
		none: "no response of a declared rate-limited route was seen",
		summary: func(obs []rlObs) string {
			return "forms " + distinct(obs, func(o rlObs) string { return string(o.fields.Form) })
		}})
}

func hasPolicy(o rlObs) bool { return o.has(headers.RateLimitPolicy) }

// distinct renders the distinct values of key over obs with their counts.
func distinct(obs []rlObs, key func(rlObs) string) string {
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
