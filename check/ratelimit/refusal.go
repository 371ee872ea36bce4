package ratelimit

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/resilcheck/resilcheck/check"
)

func admittedAfterReset(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	tenant := rlTenant(ctx, c)
	e := exhaust(ctx, c, tenant)
	settled := time.Now() // every exhaustion request has been answered
	if !e.Refused {
		return e.notRefused(fmt.Sprintf("no 429 after %d requests on a fresh tenant", e.Sent))
	}
	o, n := e.First, e.Sent
	wait, basis := time.Duration(0), ""
	if ra, raw, err := o.RetryAfter(); raw != "" && err == nil {
		wait, basis = ra.Delay, fmt.Sprintf("Retry-After %q", raw)
	}
	if t, ok := check.AnyReset(o); ok && (basis == "" || t > wait) {
		wait, basis = t, fmt.Sprintf("t=%s", t)
	}
	if x := o.X; !o.Advertises() && x.HasReset {
		// The legacy fields are all the target shows: their reset is the
		// instant it says the quota is back, whatever Retry-After says.
		wait = max(x.ResetIn, 0)
		basis = fmt.Sprintf("%sReset%s %q (%s)", x.Prefix, x.Window, o.Header.Get(x.Prefix+"Reset"+x.Window), x.ResetKind)
	}
	switch {
	case basis == "":
		return check.NotApplicable("the 429 advertised neither a valid Retry-After nor a reset")
	case wait > config(h).maxLoad():
		return check.NotApplicable("the advertised wait %s exceeds the suite's %s cap", wait, config(h).maxLoad())
	}
	tol := h.Slack()
	select {
	case <-ctx.Done():
		return check.Inconclusive("interrupted")
	case <-time.After(time.Until(o.At.Add(wait + tol))):
	}
	if x := o.X; !o.Advertises() && x.HasReset && x.HasLimit && x.Limit > 1 {
		return quotaBackAfterReset(ctx, c, tenant, o, n, basis, o.At.Add(wait).After(settled))
	}
	p, err := rlProbe(ctx, c, tenant)
	want := fmt.Sprintf("a request sent once the later of Retry-After and t (or, where the legacy fields are all the target shows, X-RateLimit-Reset) has passed (+%s) is admitted", tol)
	switch {
	case err != nil:
		return check.Fail(want, fmt.Sprintf("transport error %v after waiting %s (%s)", err, wait, basis), c.Evidence()...)
	case p.Status == http.StatusTooManyRequests:
		return check.Fail(want, fmt.Sprintf("refused again %s after the 429 although %s; RateLimit %q, X-RateLimit-Remaining %q", p.At.Sub(o.At).Round(time.Millisecond),
			basis, p.Header.Get("RateLimit"), p.Header.Get("X-RateLimit-Remaining")), c.Evidence()...)
	}
	return check.Pass(want, fmt.Sprintf("429 after %d requests (%s); %d %s later", n, basis, p.Status, p.At.Sub(o.At).Round(time.Millisecond)), c.Evidence()...)
}

func tooManyBody(ctx context.Context, c *check.Case) check.Result {
	e := exhaust(ctx, c, rlTenant(ctx, c))
	if !e.Refused {
		return e.notRefused(fmt.Sprintf("no 429 after %d requests on a fresh tenant", e.Sent))
	}
	o, n := e.First, e.Sent
	want := "the 429 has a non-empty body explaining the condition"
	got := fmt.Sprintf("429 after %d requests, Content-Type %q, body %s", n, o.Header.Get("Content-Type"), check.Excerpt(o.Body))
	if len(bytes.TrimSpace(o.Body)) == 0 {
		return check.Fail(want, got, c.Evidence()...)
	}
	return check.Pass(want, got, c.Evidence()...)
}

func tenantIsolation(ctx context.Context, c *check.Case) check.Result {
	a, b := rlTenant(ctx, c), rlTenant(ctx, c)
	e := exhaust(ctx, c, a)
	if !e.Refused {
		return e.notRefused(fmt.Sprintf("tenant %s was not refused after %d requests", a, e.Sent))
	}
	n := e.Sent
	pb, errB := rlProbe(ctx, c, b)
	pa, errA := rlProbe(ctx, c, a)
	want := "right after tenant A's 429, a fresh tenant B is admitted"
	switch {
	case errB != nil:
		return check.Fail(want, fmt.Sprintf("tenant B: transport error %v", errB), c.Evidence()...)
	case pb.Status == http.StatusTooManyRequests:
		return check.Fail(want, fmt.Sprintf("tenant B refused after A (%d requests) was exhausted; RateLimit %q", n, pb.Header.Get("RateLimit")), c.Evidence()...)
	}
	again := "A again: " + check.Describe(check.Reply{Status: pa.Status, Err: errA})
	return check.Pass(want, fmt.Sprintf("A refused after %d requests; B then %d (RateLimit %q); %s", n, pb.Status, pb.Header.Get("RateLimit"), again), c.Evidence()...)
}

// quotaBackAfterReset judges a legacy reset by what it promises: once it
// has passed, the quota (X-RateLimit-Limit) is back, so q requests are
// admitted. They go as a burst of exhaustWorkers in flight, not one by one:
// a sliding window refills linearly over the window, and a sequential
// client slower than q per window would never see it refuse. When the
// exhaustion's last requests were answered after the reset, they may have
// spent up to exhaustWorkers of the new window, and q − exhaustWorkers (at
// least one) must be admitted.
func quotaBackAfterReset(ctx context.Context, c *check.Case, tenant string, refusal check.Observation, sent int, basis string, quiet bool) check.Result {
	q := int(min(refusal.X.Limit, 100))
	need := q
	if !quiet {
		need = max(1, q-exhaustWorkers)
	}
	want := fmt.Sprintf("once %sReset has passed (+%s) the quota of %d is back: a burst of %d requests (%d in flight) all admitted",
		refusal.X.Prefix, c.Harness.Slack(), q, need, min(exhaustWorkers, need))
	var (
		next     atomic.Int64
		mu       sync.Mutex
		first    *check.Observation
		firstErr error
		wg       sync.WaitGroup
	)
	for range min(exhaustWorkers, need) {
		wg.Go(func() {
			for int(next.Add(1)) <= need {
				p, err := rlProbe(ctx, c, tenant)
				if err == nil && p.Status != http.StatusTooManyRequests {
					continue
				}
				mu.Lock()
				switch {
				case err != nil:
					firstErr = cmp.Or(firstErr, err)
				case first == nil || p.At.Before(first.At):
					first = &p
				}
				mu.Unlock()
				next.Store(int64(need)) // one refusal decides; stop the burst
			}
		})
	}
	wg.Wait()
	switch {
	case first == nil && firstErr != nil:
		return check.Fail(want, fmt.Sprintf("a request after the reset: transport error %v (%s)", firstErr, basis), c.Evidence()...)
	case first != nil:
		return check.Fail(want, fmt.Sprintf("refused %s after the 429 although %s; X-RateLimit-Remaining %q", first.At.Sub(refusal.At).Round(time.Millisecond),
			basis, first.Header.Get(refusal.X.Prefix+"Remaining"+refusal.X.Window)), c.Evidence()...)
	}
	return check.Pass(want, fmt.Sprintf("429 after %d requests (%s); %d requests admitted after it", sent, basis, need), c.Evidence()...)
}
