package throttling

import (
	"context"
	"fmt"
	"time"

	"github.com/resilcheck/resilcheck/check"
)

// refusedLoad (TH-01): the dependency refuses most calls for a warm-up and
// a window; in the window, calls reaching it stay within what Eq. 21-1
// lets through, counted either way (throttledLimit), plus what the
// declared cap lets through.
func refusedLoad(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	cfg, pol := config(h), h.Policy.Throttling
	warm, why := cfg.warmup(h)
	p := draw(c, cfg)
	p.refuse = warm + cfg.window()
	if err := drive(ctx, c, p); err != nil {
		return check.Undriven(err)
	}
	defer rest(ctx, c) //nolint:errcheck // the verdict is this case's; the next case heals again
	from := p.start.Add(warm)
	t := p.count(from, p.healed)
	attempts := h.Policy.Retry.Attempts()
	limit := throttledLimit(t, pol.K, pol.Rejection(), attempts, cfg.share(), cfg.floor())
	want := fmt.Sprintf("after %s of refusals (%s), calls ≤ max(K·accepts, √(K·accepts·requests·a)) + (1 − %s)·requests·a + %.2f·requests + %d, K = %s, a = %d attempts a request (declared; Eq. 21-1 counted over requests, or over the calls made)",
		warm, why, rejectionText(pol), cfg.share(), cfg.floor(), kText(pol), attempts)
	obs := fmt.Sprintf("%s, over %s: %d requests, %d calls reached the dependency, %d accepted (limit %.1f calls; %.2f calls per request)",
		p, p.healed.Sub(from).Round(time.Millisecond), t.requests, t.calls, t.accepts, limit, float64(t.calls)/float64(max(1, t.requests)))
	ev := p.evidence(from, p.healed)
	switch {
	case t.requests < 10:
		return check.Inconclusive("only %d requests arrived in the counted window: %s", t.requests, obs)
	case float64(t.calls) > limit:
		return check.Fail(want, obs+": the refused dependency kept receiving the offered load", ev...)
	}
	return check.Pass(want, obs, ev...)
}

// recovery (TH-02): the dependency refuses every call until the throttler
// has engaged, then heals; once the declared recovery has passed, calls
// reach it at the offered rate again.
func recovery(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	cfg, pol := config(h), h.Policy.Throttling
	warm, _ := cfg.warmup(h)
	slack := cfg.slack(h)
	p := draw(c, cfg)
	p.share = 1 // every call refused: the throttler's history holds refusals only
	p.refuse, p.after = warm, pol.Recovery+slack+cfg.window()
	if err := drive(ctx, c, p); err != nil {
		return check.Undriven(err)
	}
	defer rest(ctx, c) //nolint:errcheck // a target that never recovers fails here; the next case heals again
	if late := p.healed.Sub(p.start.Add(warm)); late > time.Second {
		// The heal timer fired only as the load ended: the runner, not the
		// target, left no window after it to judge, so the check runs again.
		return check.NoisyRunner("the dependency healed %s after the refusals were to end, as the load ended: no requests after it to judge", late.Round(time.Millisecond))
	}
	end := p.healed.Add(p.after)
	before := p.count(p.healed.Add(-time.Second), p.healed)
	from := p.healed.Add(pol.Recovery + slack)
	t := p.reach(from, end)
	want := fmt.Sprintf("from %s (declared recovery %s + %s) after the dependency heals, at least %.0f %% of requests reach it",
		pol.Recovery+slack, pol.Recovery, slack, 100*(1-cfg.miss()))
	engaged := fmt.Sprintf("in the last second of refusals (%s): %d calls for %d requests", p, before.calls, before.requests)
	obs := fmt.Sprintf("%s; from %s after healing, over %s: %d of %d requests reached the dependency",
		engaged, (pol.Recovery + slack).Round(time.Millisecond), end.Sub(from).Round(time.Millisecond), t.calls, t.requests)
	// How late the recovery came past its bound: a stall of the runner
	// shorter than that cannot have made the failure.
	bound := pol.Recovery + slack
	late := end.Sub(from)
	if back, ok := p.backAfter(end, 250*time.Millisecond, cfg.miss()); ok {
		obs += fmt.Sprintf(" (back at the offered rate %s after healing, in 250 ms bins)", back)
		late = back - bound
	} else {
		obs += " (not back at the offered rate by the end of the run)"
	}
	ev := p.evidence(p.healed.Add(-time.Second), end)
	switch {
	case t.requests < 10 && float64(t.requests) < p.rate*end.Sub(from).Seconds()/2:
		// Requests the load offered that did not reach the front proxy,
		// the harness's own, were never sent: the runner fell behind, not
		// the target.
		return check.NoisyRunner("only %d requests arrived after the recovery, under half what the load offered: %s", t.requests, obs)
	case t.requests < 10:
		return check.Inconclusive("only %d requests arrived after the recovery: %s", t.requests, obs)
	case !recovered(t, cfg.miss()):
		res := check.Fail(want, obs+": calls did not come back", ev...)
		res.Margin = max(late, time.Millisecond)
		return res
	}
	return check.Pass(want, obs, ev...)
}
