package suites

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/headers"
)

// raTruthful429 exhausts a fresh tenant, then probes right after the 429
// and again once its Retry-After has elapsed.
func raTruthful429(ctx context.Context, c *Case) Result {
	h := c.h
	tol := h.RetryAfter.tolerance(h)
	want := fmt.Sprintf("every 429 carries Retry-After as delay-seconds or IMF-fixdate; a request sent right after it is "+
		"refused unless the 1-second resolution allows otherwise; one sent once it has elapsed (+%s) is admitted", raMs(tol))
	tenant := c.tenant()
	rs, err := c.raExhaust(ctx, tenant)
	if err != nil {
		return inconclusive("could not drive a fresh tenant into 429: %v", err)
	}
	var first raStamped
	var firstRA headers.RetryAfter
	for _, r := range rs {
		if r.err != nil || r.status != http.StatusTooManyRequests {
			continue
		}
		ra, err := raSenderValue(r.header.Get("Retry-After"), raResponseNow(r.header, r.at))
		if err != nil {
			return fail(want, fmt.Sprintf("the 429 after %d requests from one tenant: %v", len(rs), err), c.evidence()...)
		}
		if first.at.IsZero() || r.at.Before(first.at) {
			first, firstRA = r, ra
		}
	}
	// A delay-seconds value is the wait rounded up, so the quota may come
	// back up to 1 s sooner: only an admission before Retry-After − 1 s
	// contradicts it.
	var notes []string
	probe := h.raSend(ctx, call{key: c.key(), tenant: tenant, amount: c.amount()})
	claim, claimRA := first, firstRA
	switch {
	case probe.err != nil:
		return inconclusive("the probe right after the 429 failed: %v", probe.err)
	case probe.status == http.StatusTooManyRequests:
		ra, err := raSenderValue(probe.header.Get("Retry-After"), raResponseNow(probe.header, probe.at))
		if err != nil {
			return fail(want, fmt.Sprintf("the second 429: %v", err), c.evidence()...)
		}
		claim, claimRA = probe, ra
		notes = append(notes, fmt.Sprintf("a request %s after the first 429 was refused (429, Retry-After %q)",
			raMs(probe.sent.Sub(first.at)), probe.header.Get("Retry-After")))
	default:
		elapsed := probe.at.Sub(first.sent)
		if elapsed+tol < firstRA.Delay-time.Second {
			return fail(want, fmt.Sprintf("admitted (%d) at most %s after a 429 whose Retry-After %q promised no quota for %s",
				probe.status, raMs(elapsed), first.header.Get("Retry-After"), firstRA.Delay-time.Second), c.evidence()...)
		}
		notes = append(notes, fmt.Sprintf("a request %s after the first 429 was admitted (%d), within Retry-After %q's 1-second resolution",
			raMs(probe.sent.Sub(first.at)), probe.status, first.header.Get("Retry-After")))
	}
	if claimRA.Delay > h.RetryAfter.maxWait() {
		notes = append(notes, fmt.Sprintf("admission after %s not verified (longer than the %s the suite waits)", claimRA.Delay, h.RetryAfter.maxWait()))
		return pass(want, strings.Join(notes, "; "), c.evidence()...)
	}
	sleepCtx(ctx, time.Until(claim.at.Add(claimRA.Delay+tol)))
	after := h.raSend(ctx, call{key: c.key(), tenant: tenant, amount: c.amount()})
	wait := after.sent.Sub(claim.at)
	switch {
	case after.err != nil:
		return inconclusive("the request after Retry-After elapsed failed: %v", after.err)
	case after.status == http.StatusTooManyRequests:
		return fail(want, fmt.Sprintf("%s; but a request %s after a 429 with Retry-After %q was refused again",
			strings.Join(notes, "; "), raMs(wait), claim.header.Get("Retry-After")), c.evidence()...)
	}
	notes = append(notes, fmt.Sprintf("a request %s after the Retry-After %q was admitted (%d)", raMs(wait), claim.header.Get("Retry-After"), after.status))
	return pass(want, strings.Join(notes, "; "), c.evidence()...)
}

// raNotBeforeReset compares each 429's Retry-After with the reset its
// rate-limit fields advertise.
func raNotBeforeReset(ctx context.Context, c *Case) Result {
	h := c.h
	tol := h.RetryAfter.tolerance(h)
	rs, err := c.raExhaust(ctx, c.tenant())
	if err != nil {
		return inconclusive("could not drive a fresh tenant into 429: %v", err)
	}
	want := fmt.Sprintf("on every 429 carrying both, Retry-After ≥ the exhausted policy's reset (−%s)", raMs(tol))
	var compared, invalid, unlimited int
	var seen []string
	for _, r := range rs {
		if r.err != nil || r.status != http.StatusTooManyRequests {
			continue
		}
		ra, err := raSenderValue(r.header.Get("Retry-After"), raResponseNow(r.header, r.at))
		if err != nil {
			invalid++
			continue
		}
		t, form, ok := raReset(r.header)
		if !ok {
			unlimited++
			continue
		}
		compared++
		reset := time.Duration(t) * time.Second
		if ra.Delay+tol < reset {
			return fail(want, fmt.Sprintf("a 429 says Retry-After %q (%s) but %s=%d", r.header.Get("Retry-After"), ra.Delay, form, t), c.evidence()...)
		}
		seen = append(seen, fmt.Sprintf("Retry-After %q vs %s=%d", r.header.Get("Retry-After"), form, t))
	}
	if compared == 0 {
		return notApplicable("no 429 carried both a valid Retry-After and a rate-limit reset (%d without a valid Retry-After, %d without rate-limit fields); HS-01a judges the Retry-After itself",
			invalid, unlimited)
	}
	slices.Sort(seen)
	return pass(want, fmt.Sprintf("%d 429s compared: %s", compared, strings.Join(slices.Compact(seen), "; ")), c.evidence()...)
}

// raTruthful503 fails the dependency until the target answers 503, then
// repairs it and retries once the 503's Retry-After has elapsed. Whether a
// retry before then is refused says nothing here: the outage is ours.
func raTruthful503(ctx context.Context, c *Case) Result {
	h := c.h
	tol := h.RetryAfter.tolerance(h)
	want := fmt.Sprintf("the 503 carries Retry-After as delay-seconds or IMF-fixdate; once it has elapsed (+%s), with the dependency back, the same request succeeds", raMs(tol))
	if err := c.heal(ctx, c.h.RetryAfter.breakerFlush(c.h), c.h.RetryAfter.flushWithin(c.h)); err != nil {
		return inconclusive("%v", err)
	}
	_, lift, err := c.rule(h.Dependency, c.effectMatch(0), raAbort(http.StatusServiceUnavailable, nil))
	if err != nil {
		return inconclusive("%v", err)
	}
	budget := h.RetryAfter.budget()
	base := call{key: c.key(), tenant: c.tenant(), amount: c.amount(), header: h.budgetHeader(budget), timeout: budget + 3*time.Second}
	r := h.raSend(ctx, base)
	lift()
	if r.err != nil || r.status != http.StatusServiceUnavailable {
		return inconclusive("with every dependency call answered 503 the target answered %s, not 503", describe(r.reply))
	}
	v := r.header.Get("Retry-After")
	ra, err := raSenderValue(v, raResponseNow(r.header, r.at))
	if err != nil {
		return fail(want, fmt.Sprintf("the 503 for a failing dependency: %v", err), c.evidence()...)
	}
	if ra.Delay > h.RetryAfter.maxWait() {
		return pass(want, fmt.Sprintf("503 with a valid Retry-After %q; the retry after %s not verified (longer than the %s the suite waits)",
			v, ra.Delay, h.RetryAfter.maxWait()), c.evidence()...)
	}
	sleepCtx(ctx, time.Until(r.at.Add(ra.Delay+tol)))
	again := h.raSend(ctx, base)
	if !h.succeeded(again.reply) {
		return fail(want, fmt.Sprintf("503 with Retry-After %q; the retry %s later, with the dependency back, got %s",
			v, raMs(again.sent.Sub(r.at)), describe(again.reply)), c.evidence()...)
	}
	return pass(want, fmt.Sprintf("503 with Retry-After %q; the retry %s later succeeded (%d)", v, raMs(again.sent.Sub(r.at)), again.status), c.evidence()...)
}

// raRunWideSyntax sweeps the whole journal for the 429 and 503 answers the
// target sent (not those a front rule made up) and validates each
// Retry-After; with none recorded it drives one 429 first.
func raRunWideSyntax(ctx context.Context, c *Case) Result {
	h := c.h
	answers := raTargetRefusals(h.Journal)
	if len(answers) == 0 {
		if _, err := c.raExhaust(ctx, c.tenant()); err != nil {
			return inconclusive("no 429 or 503 recorded in the run and could not drive one: %v", err)
		}
		h.settle(ctx)
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
		return fail(want, fmt.Sprintf("%d of %d answers (%s) without a valid Retry-After; first: %v", len(bad), len(answers), counts, firstErr), bad...)
	}
	return pass(want, fmt.Sprintf("%s, all valid (%d delay-seconds, %d IMF-fixdate)", counts, forms["delay-seconds"], forms["IMF-fixdate"]), answers...)
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
