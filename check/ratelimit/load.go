package ratelimit

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/headers"
)

// enforcedQuota drives one tenant at twice the advertised rate and counts
// admissions per window, the windows starting at the first 429 (the burst
// is spent by then). A token bucket or fixed window admits q per any
// window of length w in that steady state, whatever its phase.
func enforcedQuota(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	tenant := rlTenant(ctx, c)
	first, err := rlProbe(ctx, c, tenant)
	if err != nil {
		return check.Inconclusive("first request failed: %v", err)
	}
	p, ok := tightestPolicy(first.Fields)
	if !ok && !first.Advertises() {
		p, ok = legacyPolicyOf(ctx, c, tenant, first)
	}
	if !ok {
		return check.NotApplicable("no request-unit policy with a quota and a window is advertised (RL-01 judges the fields)")
	}
	cfg := config(h)
	windows := 3 + c.IntN(2)
	rate := 2 * float64(p.Quota) / p.Window.Seconds()
	duration := p.Window * time.Duration(windows+2)
	switch {
	case rate > cfg.maxRate():
		return check.NotApplicable("twice the advertised rate is %.0f/s, above the suite's %.0f/s cap", rate, cfg.maxRate())
	case duration > cfg.maxLoad():
		return check.NotApplicable("%d windows of %s exceed the suite's %s load cap", windows+2, p.Window, cfg.maxLoad())
	}
	hits, err := rlAttack(ctx, h, rlTargeter(c, tenant), vegeta.Rate{Freq: int(2 * p.Quota), Per: p.Window}, duration)
	if err != nil {
		return check.Inconclusive("load: %v", err)
	}
	for _, x := range hits {
		if x.code == http.StatusTooManyRequests && slices.Contains(h.Conventions.Tenants, tenant) {
			h.QuotaBackAt(tenant, x.at.Add(p.Window)) // the load ends spent: a window from its last 429 refills it
		}
	}
	res := judgeWindows(hits, p, windows, rate, h.Slack(), cfg.quotaSlack())
	res.Evidence = c.Evidence()
	return res
}

// tightestPolicy is the request-unit policy with a window and the lowest q/w.
func tightestPolicy(f headers.RateLimitFields) (headers.Policy, bool) {
	var best headers.Policy
	found := false
	for _, p := range f.Policies {
		if p.Unit != headers.UnitRequests || p.Window <= 0 || p.Quota <= 0 {
			continue
		}
		if !found || float64(p.Quota)/p.Window.Seconds() < float64(best.Quota)/best.Window.Seconds() {
			best, found = p, true
		}
	}
	return best, found
}

// hit is one load request: when it was sent and its status (0 on error).
type hit struct {
	at   time.Time
	code int
}

// rlTargeter renders the load's requests for tenant: GETs of the declared
// probe, or else the first declared rate-limited operation, each with a
// fresh key so none is a replay.
func rlTargeter(c *check.Case, tenant string) vegeta.Targeter {
	h := c.Harness
	if h.Policy.RateLimitProbe == "" && len(h.Policy.RateLimited) > 0 {
		op := h.Policy.RateLimited[0]
		return func(t *vegeta.Target) error {
			key := c.Key()
			r, err := op.Prepare(check.Values{Key: key, Tenant: tenant, Amount: c.Amount()}, false)
			if err != nil {
				return fmt.Errorf("render %s: %w", op.Name, err)
			}
			t.Method, t.URL, t.Body = cmp.Or(r.Method, http.MethodPost), h.TargetURL+r.Path, r.Body
			t.Header = r.Header.Clone()
			if t.Header == nil {
				t.Header = http.Header{}
			}
			t.Header.Set(h.KeyHeaderOf(op), h.Conventions.FormatKey(key))
			h.Conventions.SetTenant(t.Header, tenant)
			return nil
		}
	}
	url := h.TargetURL + h.Policy.RateLimitProbe
	return func(t *vegeta.Target) error {
		t.Method, t.URL = http.MethodGet, url
		t.Header = http.Header{} // a fresh map per request: targeters run concurrently
		h.Conventions.SetTenant(t.Header, tenant)
		return nil
	}
}

// legacyPolicy reads the quota from X-RateLimit-Limit where the legacy
// fields are all a response shows. They name no window: on a fresh
// tenant's first response the reset is at most one window away, so its
// delay rounded up to whole seconds is taken as w (a fixed window that
// starts at the first request, or a one-second aligned one, gives it exactly).
func legacyPolicy(o check.Observation) (headers.Policy, bool) {
	x := o.X
	if !x.HasLimit || x.Limit <= 0 || !x.HasReset || x.ResetIn <= 0 {
		return headers.Policy{}, false
	}
	w := x.ResetIn.Truncate(time.Second)
	if w < x.ResetIn {
		w += time.Second
	}
	return headers.Policy{Name: x.Prefix + "Limit" + x.Window, Quota: x.Limit, Window: w, Unit: headers.UnitRequests}, true
}

// legacyPolicyOf is legacyPolicy of first, or, when first's reset had
// already passed as it arrived (a window ending between the target's
// clock reading and ours, more likely on a busy machine), of up to two
// more probes of tenant, each of which starts or meets a newer window.
func legacyPolicyOf(ctx context.Context, c *check.Case, tenant string, first check.Observation) (headers.Policy, bool) {
	o := first
	for range 2 {
		if p, ok := legacyPolicy(o); ok || !o.X.HasLimit || !o.X.HasReset || o.X.ResetIn > 0 {
			return p, ok
		}
		next, err := rlProbe(ctx, c, tenant)
		if err != nil {
			return headers.Policy{}, false
		}
		o = next
	}
	return legacyPolicy(o)
}

// rlAttack sends the targeter's requests at pace for duration.
func rlAttack(ctx context.Context, h *check.Harness, targeter vegeta.Targeter, pace vegeta.Rate, duration time.Duration) ([]hit, error) {
	tr := &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 128}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: noReplayGet{tr}, Timeout: 5 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	// Client must come first: it replaces the whole client.
	atk := vegeta.NewAttacker(vegeta.Client(client), vegeta.Workers(8), vegeta.MaxBody(0))
	stop := context.AfterFunc(ctx, func() { atk.Stop() })
	defer stop()
	var hits []hit
	for res := range atk.Attack(targeter, pace, duration, "resilcheck-ratelimit") {
		hits = append(hits, hit{at: res.Timestamp, code: int(res.Code)})
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].at.Before(hits[j].at) })
	return hits, nil
}

// noReplayGet stops net/http from re-sending a request on its own: it
// replays a bodiless GET on a reused connection that fails, which would
// charge the tenant for a request nobody counted.
type noReplayGet struct{ base http.RoundTripper }

var _ http.RoundTripper = noReplayGet{}

// RoundTrip sends a copy of r whose body cannot be rewound.
func (t noReplayGet) RoundTrip(r *http.Request) (*http.Response, error) {
	r2 := r.Clone(r.Context())
	r2.GetBody = nil
	if r2.Body == nil || r2.Body == http.NoBody {
		r2.Body, r2.ContentLength = io.NopCloser(strings.NewReader("")), 0
	}
	return t.base.RoundTrip(r2)
}

// window is the tally of one counting window.
type window struct{ sent, accepted, refused, other int }

// judgeWindows counts n windows of p.Window from the first 429 and judges
// the admissions against q; the caller attaches the evidence.
func judgeWindows(hits []hit, p headers.Policy, n int, rate float64, tol time.Duration, slack float64) check.Result {
	start := -1
	for i, x := range hits {
		if x.code == http.StatusTooManyRequests {
			start = i
			break
		}
	}
	if start < 0 {
		return check.Fail(fmt.Sprintf("some refusals at twice the advertised rate (q=%d per %s)", p.Quota, p.Window),
			fmt.Sprintf("all %d requests at %.0f/s were admitted", len(hits), rate))
	}
	t0, last := hits[start].at, hits[len(hits)-1].at
	var ws []window
	for k := 0; k < n && !t0.Add(time.Duration(k+1)*p.Window).After(last); k++ {
		ws = append(ws, tally(hits[start:], t0.Add(time.Duration(k)*p.Window), p.Window))
	}
	if len(ws) < 2 {
		return check.Inconclusive("only %d full windows after the first 429 (at %s into the load); the burst took too long to drain",
			len(ws), t0.Sub(hits[0].at).Round(time.Millisecond))
	}
	edge := 2 + int(math.Ceil(rate*tol.Seconds())) // requests that can fall on the wrong side of a window edge
	q := int(p.Quota)
	lo, hi := int(math.Floor(float64(q)*(1-slack)))-2*edge, q+2*edge
	tlo, thi := int(math.Floor(float64(q*len(ws))*(1-slack)))-edge, q*len(ws)+edge
	want := fmt.Sprintf("at %.0f/s (twice q=%d per %s), admissions per window in [%d, %d] and over %d windows in [%d, %d] (edge slack %d, shortfall slack %.0f%%)",
		rate, q, p.Window, lo, hi, len(ws), tlo, thi, edge, slack*100)
	total, counts := 0, make([]string, len(ws))
	for i, w := range ws {
		total += w.accepted
		counts[i] = fmt.Sprintf("%d/%d", w.accepted, w.sent)
		switch {
		case w.other*20 > w.sent:
			return check.Inconclusive("window %d: sent %d (scheduled %.0f), %d neither admitted nor refused: the load is not what was asked",
				i+1, w.sent, rate*p.Window.Seconds(), w.other)
		case float64(w.sent) < 0.75*rate*p.Window.Seconds():
			// The harness's own sending fell behind: the runner's doing.
			return check.NoisyRunner("window %d: the harness sent %d of the %.0f requests it scheduled: the load is not what was asked",
				i+1, w.sent, rate*p.Window.Seconds())
		}
	}
	got := fmt.Sprintf("admitted/sent per window %s, %d in all, first 429 %s into the load", strings.Join(counts, " "), total,
		t0.Sub(hits[0].at).Round(time.Millisecond))
	for _, w := range ws {
		if w.accepted < lo || w.accepted > hi {
			return check.Fail(want, got)
		}
	}
	if total < tlo || total > thi {
		return check.Fail(want, got)
	}
	return check.Pass(want, got)
}

func tally(hits []hit, from time.Time, length time.Duration) window {
	var w window
	to := from.Add(length)
	for _, x := range hits {
		if x.at.Before(from) || !x.at.Before(to) {
			continue
		}
		w.sent++
		switch {
		case x.code >= 200 && x.code < 300:
			w.accepted++
		case x.code == http.StatusTooManyRequests:
			w.refused++
		default:
			w.other++
		}
	}
	return w
}
