package retryafter

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/headers"
)

// raTruthful429 exhausts a fresh tenant, then probes right after the 429
// and again once its Retry-After has elapsed.
func raTruthful429(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	tol := config(h).tolerance(h)
	want := fmt.Sprintf("every 429 carries Retry-After as delay-seconds or IMF-fixdate; a request sent right after it is "+
		"refused unless the 1-second resolution allows otherwise; one sent once it has elapsed (+%s) is admitted", check.Ms(tol))
	tenant := c.Tenant()
	rs, err := raExhaust(ctx, c, tenant)
	if err != nil {
		return check.Inconclusive("could not drive a fresh tenant into 429: %v", err)
	}
	var first raStamped
	var firstRA headers.RetryAfter
	for _, r := range rs {
		if r.Err != nil || r.Status != http.StatusTooManyRequests {
			continue
		}
		ra, err := raSenderValue(r.Header.Get("Retry-After"), raResponseNow(r.Header, r.at))
		if err != nil {
			return check.Fail(want, fmt.Sprintf("the 429 after %d requests from one tenant: %v", len(rs), err), c.Evidence()...).Untimed()
		}
		if first.at.IsZero() || r.at.Before(first.at) {
			first, firstRA = r, ra
		}
	}
	// A delay-seconds value is the wait rounded up, so the quota may come
	// back up to 1 s sooner: only an admission before Retry-After − 1 s
	// contradicts it.
	var notes []string
	probe := raSend(ctx, h, check.Call{Key: c.Key(), Tenant: tenant, Amount: c.Amount()})
	claim, claimRA := first, firstRA
	switch {
	case probe.Err != nil:
		return check.Inconclusive("the probe right after the 429 failed: %v", probe.Err)
	case probe.Status == http.StatusTooManyRequests:
		ra, err := raSenderValue(probe.Header.Get("Retry-After"), raResponseNow(probe.Header, probe.at))
		if err != nil {
			return check.Fail(want, fmt.Sprintf("the second 429: %v", err), c.Evidence()...).Untimed()
		}
		claim, claimRA = probe, ra
		notes = append(notes, fmt.Sprintf("a request %s after the first 429 was refused (429, Retry-After %q)",
			check.Ms(probe.sent.Sub(first.at)), probe.Header.Get("Retry-After")))
	default:
		elapsed := probe.at.Sub(first.sent)
		if elapsed+tol < firstRA.Delay-time.Second {
			res := check.Fail(want, fmt.Sprintf("admitted (%d) at most %s after a 429 whose Retry-After %q promised no quota for %s",
				probe.Status, check.Ms(elapsed), first.Header.Get("Retry-After"), firstRA.Delay-time.Second), c.Evidence()...)
			res.Margin = firstRA.Delay - time.Second - elapsed - tol
			return res
		}
		notes = append(notes, fmt.Sprintf("a request %s after the first 429 was admitted (%d), within Retry-After %q's 1-second resolution",
			check.Ms(probe.sent.Sub(first.at)), probe.Status, first.Header.Get("Retry-After")))
	}
	if claimRA.Delay > config(h).maxWait() {
		notes = append(notes, fmt.Sprintf("admission after %s not verified (longer than the %s the suite waits)", claimRA.Delay, config(h).maxWait()))
		return check.Pass(want, strings.Join(notes, "; "), c.Evidence()...)
	}
	check.Sleep(ctx, time.Until(claim.at.Add(claimRA.Delay+tol)))
	after := raSend(ctx, h, check.Call{Key: c.Key(), Tenant: tenant, Amount: c.Amount()})
	wait := after.sent.Sub(claim.at)
	switch {
	case after.Err != nil:
		return check.Inconclusive("the request after Retry-After elapsed failed: %v", after.Err)
	case after.Status == http.StatusTooManyRequests:
		return check.Fail(want, fmt.Sprintf("%s; but a request %s after a 429 with Retry-After %q was refused again",
			strings.Join(notes, "; "), check.Ms(wait), claim.Header.Get("Retry-After")), c.Evidence()...)
	}
	notes = append(notes, fmt.Sprintf("a request %s after the Retry-After %q was admitted (%d)", check.Ms(wait), claim.Header.Get("Retry-After"), after.Status))
	return check.Pass(want, strings.Join(notes, "; "), c.Evidence()...)
}

// raNotBeforeReset compares each 429's Retry-After with the reset its
// rate-limit fields advertise.
func raNotBeforeReset(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	tol := config(h).tolerance(h)
	rs, err := raExhaust(ctx, c, c.Tenant())
	if err != nil {
		return check.Inconclusive("could not drive a fresh tenant into 429: %v", err)
	}
	want := fmt.Sprintf("on every 429 carrying both, Retry-After ≥ the exhausted policy's reset (−%s)", check.Ms(tol))
	var compared, invalid, unlimited int
	var seen []string
	for _, r := range rs {
		if r.Err != nil || r.Status != http.StatusTooManyRequests {
			continue
		}
		ra, err := raSenderValue(r.Header.Get("Retry-After"), raResponseNow(r.Header, r.at))
		if err != nil {
			invalid++
			continue
		}
		t, form, ok := raReset(r.Header)
		if !ok {
			unlimited++
			continue
		}
		compared++
		reset := time.Duration(t) * time.Second
		if ra.Delay+tol < reset {
			return check.Fail(want, fmt.Sprintf("a 429 says Retry-After %q (%s) but %s=%d", r.Header.Get("Retry-After"), ra.Delay, form, t), c.Evidence()...).Untimed()
		}
		seen = append(seen, fmt.Sprintf("Retry-After %q vs %s=%d", r.Header.Get("Retry-After"), form, t))
	}
	if compared == 0 {
		return check.NotApplicable("no 429 carried both a valid Retry-After and a rate-limit reset (%d without a valid Retry-After, %d without rate-limit fields); HS-01a judges the Retry-After itself",
			invalid, unlimited)
	}
	slices.Sort(seen)
	return check.Pass(want, fmt.Sprintf("%d 429s compared: %s", compared, strings.Join(slices.Compact(seen), "; ")), c.Evidence()...)
}

// raTruthful503 fails the dependency until the target answers 503, then
// repairs it and retries once the 503's Retry-After has elapsed. Whether a
// retry before then is refused says nothing here: the outage is ours.
func raTruthful503(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	tol := config(h).tolerance(h)
	want := fmt.Sprintf("the 503 carries Retry-After as delay-seconds or IMF-fixdate; once it has elapsed (+%s), with the dependency back, the same request succeeds", check.Ms(tol))
	if err := c.Heal(ctx, config(c.Harness).breakerFlush(c.Harness), config(c.Harness).flushWithin(c.Harness)); err != nil {
		return check.Inconclusive("%v", err)
	}
	_, lift, err := c.Rule(h.Dependency, c.EffectMatch(0), raAbort(http.StatusServiceUnavailable, nil))
	if err != nil {
		return check.Inconclusive("%v", err)
	}
	budget := config(h).budget()
	base := check.Call{Key: c.Key(), Tenant: c.Tenant(), Amount: c.Amount(), Header: h.BudgetHeader(budget), Timeout: budget + 3*time.Second}
	r := raSend(ctx, h, base)
	lift()
	if r.Err != nil || r.Status != http.StatusServiceUnavailable {
		return check.Inconclusive("with every dependency call answered 503 the target answered %s, not 503", check.Describe(r.Reply))
	}
	v := r.Header.Get("Retry-After")
	ra, err := raSenderValue(v, raResponseNow(r.Header, r.at))
	if err != nil {
		return check.Fail(want, fmt.Sprintf("the 503 for a failing dependency: %v", err), c.Evidence()...).Untimed()
	}
	if ra.Delay > config(h).maxWait() {
		return check.Pass(want, fmt.Sprintf("503 with a valid Retry-After %q; the retry after %s not verified (longer than the %s the suite waits)",
			v, ra.Delay, config(h).maxWait()), c.Evidence()...)
	}
	check.Sleep(ctx, time.Until(r.at.Add(ra.Delay+tol)))
	again := raSend(ctx, h, base)
	if !h.Succeeded(again.Reply) {
		return check.Fail(want, fmt.Sprintf("503 with Retry-After %q; the retry %s later, with the dependency back, got %s",
			v, check.Ms(again.sent.Sub(r.at)), check.Describe(again.Reply)), c.Evidence()...)
	}
	return check.Pass(want, fmt.Sprintf("503 with Retry-After %q; the retry %s later succeeded (%d)", v, check.Ms(again.sent.Sub(r.at)), again.Status), c.Evidence()...)
}

// raRunWideSyntax sweeps the whole journal for the 429 and 503 answers the
// target sent (not those a front rule made up) and validates each
// Retry-After; with none recorded it drives one 429 first.
func raRunWideSyntax(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	answers := raTargetRefusals(h.Journal)
	if len(answers) == 0 {
		if _, err := raExhaust(ctx, c, c.Tenant()); err != nil {
			return check.Inconclusive("no 429 or 503 recorded in the run and could not drive one: %v", err)
		}
		h.Settle(ctx)
		answers = raTargetRefusals(h.Journal)
	}
	want := "every 429 and 503 the target sent during the run carries exactly one Retry-After: delay-seconds or an IMF-fixdate"
	var bad []faults.Entry
	var firstErr error
	forms := map[string]int{}
	for _, e := range answers {
		ra, err := raSenderValue(e.ResponseHeader("Retry-After"), e.Finished)
		if err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("%s %s answered %d: %w", e.Method, e.Path, e.Status, err)
			}
			bad = append(bad, e)
			continue
		}
		forms[ra.Form]++
	}
	counts := fmt.Sprintf("%d 429s and %d 503s", raCount(answers, http.StatusTooManyRequests), raCount(answers, http.StatusServiceUnavailable))
	if len(bad) > 0 {
		return check.Fail(want, fmt.Sprintf("%d of %d answers (%s) without a valid Retry-After; first: %v", len(bad), len(answers), counts, firstErr), bad...).Untimed()
	}
	return check.Pass(want, fmt.Sprintf("%s, all valid (%d delay-seconds, %d IMF-fixdate)", counts, forms["delay-seconds"], forms["IMF-fixdate"]), answers...)
}

// raTargetRefusals returns the front-side 429 and 503 answers relayed from
// the target.
func raTargetRefusals(j *faults.Journal) []faults.Entry {
	return j.Snapshot(faults.BySide("front"), func(e *faults.Entry) bool {
		return (e.Status == http.StatusTooManyRequests || e.Status == http.StatusServiceUnavailable) &&
			slices.Contains(e.UpstreamStatuses, e.Status) && e.Fault != "abort" && e.Fault != "respond"
	})
}

func raCount(es []faults.Entry, status int) int {
	n := 0
	for _, e := range es {
		if e.Status == status {
			n++
		}
	}
	return n
}

// raAbort is a dependency answer with status and extra headers.
func raAbort(status int, hdr map[string]string) faults.Abort {
	h := map[string]string{"Content-Type": "application/problem+json"}
	for k, v := range hdr {
		h[k] = v
	}
	body := fmt.Sprintf(`{"type":"about:blank","title":%q,"status":%d}`, http.StatusText(status), status)
	return faults.Abort{Status: status, Headers: h, Body: body}
}
