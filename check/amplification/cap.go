package amplification

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// nonRetryable is RB-01b: each of the dependency's answers no retry can
// change (Harness.Rejections: 400, 401 and 422, or their gRPC codes) gets
// exactly one call.
func nonRetryable(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	if err := c.Heal(ctx, h.Policy.Retry.HealStreak(), h.HealWithin()); err != nil {
		return check.Inconclusive("before the check: %v", err)
	}
	rejections := h.Rejections()
	names := make([]string, len(rejections))
	for i, r := range rejections {
		names[i] = r.Text
	}
	want := fmt.Sprintf("exactly 1 dependency call per logical request when the dependency answers %s or %s",
		strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
	var seen []string
	var ev []faults.Entry
	for _, rej := range rejections {
		_, remove, err := c.Rule(h.Dependency, c.EffectMatch(0), rej.Fault)
		if err != nil {
			return check.Inconclusive("%v", err)
		}
		r, calls := logicalRequests(ctx, c, check.Call{Key: c.Key(), Tenant: c.Tenant(), Amount: c.Amount()})
		remove()
		ev = append(ev, calls...)
		switch {
		case len(calls) == 0:
			return check.Inconclusive("the dependency saw no call for a payment (%s to the client)", check.Describe(r))
		case len(calls) > 1:
			return check.Fail(want, fmt.Sprintf("the dependency answered %s and was called %d times for one logical request (client got %s)", rej.Text, len(calls), check.Describe(r)), c.Evidence()...)
		}
		seen = append(seen, fmt.Sprintf("%s: 1 call, client got %s", rej.Text, check.Describe(r)))
	}
	return check.Pass(want, strings.Join(seen, "; "), ev...)
}

// gatewayNoRetry is HS-14. RFC 9110 §9.2.2 forbids a proxy in front of the
// service to re-send a failed POST; the service's own keyed retries of its
// dependency are another matter (RB-01, HS-13). First the dependency
// answers 200 with a body the service may not be able to use: a service
// that fails on it has no reason to retry, so every call beyond the first
// comes from a tier above. A service that takes any 2xx as done answers
// success; then the dependency answers 503 to every call, the service
// exhausts its attempts and fails, and calls beyond its declared cap come
// from a tier re-sending the POST. A multi-tier target is judged hop by
// hop instead (hopsNoResend), where connection failures are seen too.
func gatewayNoRetry(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	if len(h.Hops) > 0 {
		return hopsNoResend(ctx, c)
	}
	if err := c.Heal(ctx, h.Policy.Retry.HealStreak(), h.HealWithin()); err != nil {
		return check.Inconclusive("before the check: %v", err)
	}
	_, remove, err := c.Rule(h.Dependency, c.EffectMatch(0), faults.Respond{Status: http.StatusOK, Headers: map[string]string{"Content-Type": "application/json"}, Body: "{}"})
	if err != nil {
		return check.Inconclusive("%v", err)
	}
	want := "the target answers the failed POST with a 5xx after exactly 1 dependency call: no tier re-sends it (strict RFC profile, no Idempotency-Key exception)"
	n := 1 + c.IntN(2)
	var seen []string
	for i := range n {
		r, calls := logicalRequests(ctx, c, check.Call{Key: c.Key(), Tenant: c.Tenant(), Amount: c.Amount()})
		switch {
		case i == 0 && r.Err == nil && r.Status < 500 && len(calls) == 1:
			remove()
			return gatewayExhausted(ctx, c, fmt.Sprintf("the target answered %d to a dependency's 200 {} after 1 call (it takes any 2xx as done)", r.Status))
		case r.Err == nil && r.Status < 500:
			remove()
			return check.Inconclusive("the target answered %d to an unusable dependency answer after %d calls: no failure for a gateway to retry", r.Status, len(calls))
		case len(calls) == 0:
			remove()
			return check.Inconclusive("the dependency saw no call (client got %s)", check.Describe(r))
		case len(calls) > 1:
			remove()
			return check.Fail(want, fmt.Sprintf("one POST answered %s reached the dependency %d times with keys %s: a tier above the service re-sent it",
				check.Describe(r), len(calls), keyList(h, calls)), c.Evidence()...)
		}
		seen = append(seen, check.Describe(r)+" after 1 call")
	}
	remove()
	return check.Pass(want, strings.Join(seen, "; "), c.Evidence()...)
}

// gatewayExhausted is HS-14 for a service that takes any 2xx from its
// dependency as done: one POST while the dependency answers 503 to every
// call must reach it no more often than one tier's declared attempts.
func gatewayExhausted(ctx context.Context, c *check.Case, why string) check.Result {
	h := c.Harness
	limit := h.Policy.Retry.Attempts()
	want := fmt.Sprintf("the target answers a POST whose dependency calls all fail with a 5xx after at most %s calls: no tier re-sends it (strict RFC profile)", h.Policy.Retry.AttemptsText())
	if err := c.Heal(ctx, h.Policy.Retry.HealStreak(), h.HealWithin()); err != nil {
		return check.Inconclusive("%s; then: %v", why, err)
	}
	_, remove, err := c.Rule(h.Dependency, c.EffectMatch(0), failureFault(h, "503"))
	if err != nil {
		return check.Inconclusive("%v", err)
	}
	r, calls := logicalRequests(ctx, c, check.Call{Key: c.Key(), Tenant: c.Tenant(), Amount: c.Amount()})
	remove()
	obs := fmt.Sprintf("%s; with every call answered %s: %d calls (keys %s), client got %s", why, kindText(h, "503"), len(calls), keyList(h, calls), check.Describe(r))
	switch {
	case r.Err == nil && r.Status < 500:
		return check.Inconclusive("%s: no failure for a gateway to retry", obs)
	case len(calls) == 0:
		return check.Inconclusive("%s: nothing to count", obs)
	case len(calls) > limit:
		return check.Fail(want, obs+": more calls than one tier's attempts, so a tier above the service re-sent the POST (or the service exceeds its own cap, RB-01)", c.Evidence()...)
	}
	return check.Pass(want, obs, c.Evidence()...)
}

func attemptCap(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	limit := h.Policy.Retry.Attempts()
	want := fmt.Sprintf("at most %s dependency calls per logical request while every call fails (%s)", h.Policy.Retry.AttemptsText(), failureKindsText(h))
	var seen []string
	// The runner's stalls, for a count over the cap that only hedges the
	// target fired before it read a failure explain (RacedHedges).
	stop := check.WatchStalls()
	defer func() {
		if stop != nil {
			stop()
		}
	}()
	for _, kind := range failureKinds {
		if err := c.Heal(ctx, h.Policy.Retry.HealStreak(), h.HealWithin()); err != nil {
			return check.Inconclusive("before the %s case: %v", kind, err)
		}
		_, remove, err := c.Rule(h.Dependency, c.EffectMatch(0), failureFault(h, kind))
		if err != nil {
			return check.Inconclusive("%v", err)
		}
		cl := check.Call{Key: c.Key(), Tenant: c.Tenant(), Amount: c.Amount()}
		label := kindText(h, kind)
		if kind == "hang" {
			budget := 300*time.Millisecond + time.Duration(c.IntN(200))*time.Millisecond
			cl.Header, cl.Timeout = h.BudgetHeader(budget), budget+3*time.Second
			label = fmt.Sprintf("hang (budget %s)", budget)
		}
		r, calls := logicalRequests(ctx, c, cl)
		remove()
		attempts := h.Attempts(calls)
		if len(attempts) > limit {
			obs := fmt.Sprintf("%s: %s for one logical request (keys %s), client got %s", label, check.CallCount(calls, attempts), keyList(h, calls), check.Describe(r))
			// Attempts that may be hedges fired before the target read a
			// failure make a count over the cap a matter of time: of how
			// late the runner let the target read it. The check runs
			// again when the runner was that late meanwhile.
			if n, late, span := h.RacedHedges(attempts); n > 0 && len(attempts)-n <= limit {
				st := stop()
				stop = nil
				// The watch sees a stall as up to its resolution shorter.
				if slow := st.Within(span.From, span.To); slow+st.Resolution() >= late {
					return check.NoisyRunner("%s; %d of them began when the declared hedging would send a copy, a hedge the target's timer fires first when it reads the failure %s late, and the runner's wake-ups came %s late in all meanwhile",
						obs, n, check.Ms(late), check.Ms(slow))
				}
			}
			return check.Fail(want, obs, c.Evidence()...)
		}
		seen = append(seen, fmt.Sprintf("%s: %s, client got %s", label, check.CallCount(calls, attempts), check.Describe(r)))
	}
	return check.Pass(want, strings.Join(seen, "; "), c.Evidence()...)
}

func keyedRetries(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	if err := c.Heal(ctx, h.Policy.Retry.HealStreak(), h.HealWithin()); err != nil {
		return check.Inconclusive("before the check: %v", err)
	}
	kind := []string{"503", "reset"}[c.IntN(2)]
	if err := c.Fault(h.Dependency, c.EffectMatch(0), failureFault(h, kind)); err != nil {
		return check.Inconclusive("%v", err)
	}
	name := h.Conventions.DependencyKeyName()
	want := fmt.Sprintf("every retried call carries %s, the same value on every attempt of one logical request (or no retry at all)", name)
	r, calls := logicalRequests(ctx, c, check.Call{Key: c.Key(), Tenant: c.Tenant(), Amount: c.Amount()})
	switch {
	case len(calls) == 0:
		return check.Inconclusive("the dependency saw no call (client got %s)", check.Describe(r))
	case len(calls) == 1:
		return check.Pass(want, fmt.Sprintf("%s on every call: 1 call, no retry", kindText(h, kind)), calls...)
	}
	first := calls[0].Header(name)
	for i, e := range calls {
		if k := e.Header(name); k == "" || k != first {
			return check.Fail(want, fmt.Sprintf("%s on every call: attempt %d of %d carried %s %q (first attempt %q): a POST retried without a key the dependency can deduplicate",
				kindText(h, kind), i+1, len(calls), name, k, first), calls...)
		}
	}
	return check.Pass(want, fmt.Sprintf("%s on every call: %d attempts, all with %s %s", kindText(h, kind), len(calls), name, first), calls...)
}

// keyList renders the forwarded keys of calls, "(none)" for unkeyed ones.
func keyList(h *check.Harness, calls []faults.Entry) string {
	var ks []string
	for _, e := range calls {
		ks = append(ks, cmp.Or(e.Header(h.Conventions.DependencyKeyName()), "(none)"))
	}
	return "[" + strings.Join(ks, " ") + "]"
}
