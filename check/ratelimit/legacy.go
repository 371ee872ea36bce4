package ratelimit

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/headers"
)

func legacyExhausted(ctx context.Context, c *check.Case) check.Result {
	return runScan(ctx, c, scan{applies: func(o check.Observation) bool { return o.Status == http.StatusTooManyRequests && o.X.Present() },
		want: "every 429 that carries X-RateLimit-* says X-RateLimit-Remaining: 0",
		judge: func(o check.Observation) string {
			switch {
			case !o.X.HasRemaining:
				return "no " + o.X.Prefix + "Remaining" + o.X.Window
			case o.X.Remaining != 0:
				return fmt.Sprintf("%sRemaining%s: %d on a refusal", o.X.Prefix, o.X.Window, o.X.Remaining)
			}
			return ""
		},
		prepare: func(ctx context.Context, c *check.Case) { exhaust(ctx, c, rlTenant(ctx, c)) },
		none:    "no 429 carried X-RateLimit-* fields",
		summary: resetKinds})
}

func legacySyntax(ctx context.Context, c *check.Case) check.Result {
	return runScan(ctx, c, scan{applies: func(o check.Observation) bool { return o.X.Present() || o.XErr != nil },
		want: "X-RateLimit-Limit/-Remaining as 1*DIGIT; -Reset as delta seconds, epoch s or ms, HTTP-date or RFC 3339 (RL-22 heuristic)",
		judge: func(o check.Observation) string {
			var msgs []string
			for _, v := range headers.Violations(o.XErr) {
				msgs = append(msgs, fmt.Sprintf("%s = %q: %s", v.Field, v.Value, v.Msg))
			}
			return strings.Join(msgs, "; ")
		},
		none:    "no response carried X-RateLimit-* or X-Rate-Limit-* fields",
		summary: resetKinds})
}

func legacyAgrees(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	slack := time.Second + h.Slack()
	return runScan(ctx, c, scan{applies: func(o check.Observation) bool { return o.X.Present() && o.XErr == nil && len(o.Fields.Limits) > 0 },
		want: fmt.Sprintf("X-RateLimit-Remaining = r, X-RateLimit-Limit = q, X-RateLimit-Reset as a delay within %s of t (1 s resolution + tolerance)",
			slack),
		judge: func(o check.Observation) string { return disagreement(o, slack) },
		none:  "no response carried both X-RateLimit-* and RateLimit fields",
		summary: func(obs []check.Observation) string {
			return resetKinds(obs)
		}})
}

// disagreement compares the legacy fields with the limit that has least
// remaining (the one that decides admission).
func disagreement(o check.Observation, slack time.Duration) string {
	l, _ := o.MinRemaining()
	x := o.X
	if x.HasRemaining && x.Remaining != l.Remaining {
		return fmt.Sprintf("%sRemaining %d but r=%d", x.Prefix, x.Remaining, l.Remaining)
	}
	q, hasQ := l.Quota, l.Quota > 0
	if p, ok := policyOf(o.Fields, l); ok {
		q, hasQ = p.Quota, true
	}
	if x.HasLimit && hasQ && x.Limit != q {
		return fmt.Sprintf("%sLimit %d but q=%d", x.Prefix, x.Limit, q)
	}
	if x.HasReset && l.HasReset && !resetAgrees(o, l, slack) {
		return fmt.Sprintf("%sReset read as %s is %s away but t=%s", x.Prefix, x.ResetKind, x.ResetIn.Round(time.Millisecond), l.Reset)
	}
	return ""
}

// resetAgrees reports whether the legacy reset matches t within slack. A
// delay is compared as is; an instant is compared at some moment between
// the request's arrival and the response, since the target may compute its
// fields anywhere in between (a slow response must not look inconsistent).
func resetAgrees(o check.Observation, l headers.Limit, slack time.Duration) bool {
	if o.X.ResetKind == headers.ResetDeltaSeconds {
		d := o.X.ResetIn - l.Reset
		return d <= slack && d >= -slack
	}
	from := o.Sent
	if from.IsZero() || from.After(o.At) {
		from = o.At
	}
	latest := o.X.ResetAt.Sub(o.At) - l.Reset   // the smallest difference, at the response
	earliest := o.X.ResetAt.Sub(from) - l.Reset // the largest, at the request
	return latest <= slack && earliest >= -slack
}

// resetKinds reports how the X-RateLimit-Reset values were read (RL-22).
func resetKinds(obs []check.Observation) string {
	return "X-RateLimit-Reset read as " + distinct(obs, func(o check.Observation) string {
		if !o.X.HasReset {
			return "absent"
		}
		return string(o.X.ResetKind)
	})
}
