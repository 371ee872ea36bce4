package clients

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/resilcheck/resilcheck/headers"
)

// fakeClient is a retrying Go client written for the tests: correct by
// default, each flag breaking it the way real clients break.
type fakeClient struct {
	policy Policy
	base   time.Duration // first backoff wait without Retry-After

	ignoreRetryAfter  bool // wait the backoff whatever Retry-After says
	secondsOnly       bool // parse Retry-After as delay-seconds only
	newKeyPerAttempt  bool
	retryUnkeyedPost  bool
	retry4xx          bool
	constantBackoff   bool
	noCap             bool // retry until the deadline
	alwaysSuccess     bool // report success whatever happened
	waitPastDeadline  bool // wait out any Retry-After, deadline or not
	noConnectionRetry bool // give up on a reset or timeout
	final429          bool // take 429 as final, as a client retrying 5xx only does
	freshBudget       bool // send the whole deadline as the budget on every attempt
	noJitter          bool // wait exactly the backoff, as every instance does

	startUp   time.Duration // sleep this long before anything, as a slow process starts
	jitterCap time.Duration // wait the backoff plus at most this: jitter too small to matter
	seed      uint64        // mixed into every instance's jitter seed
}

func (f *fakeClient) Do(ctx context.Context, c Call) error {
	err := f.do(ctx, c)
	if f.alwaysSuccess {
		return nil
	}
	return err
}

func (f *fakeClient) do(ctx context.Context, c Call) error {
	if f.startUp > 0 {
		select {
		case <-time.After(f.startUp):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	p := f.policy
	if p.Deadline > 0 && !f.waitPastDeadline {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.Deadline)
		defer cancel()
	}
	// Each scenario instance draws its jitter from its own seed, the same
	// in every run, so what the judges see does not depend on luck.
	seed := fnv.New64a()
	seed.Write([]byte(c.Scenario))
	rng := rand.New(rand.NewPCG(seed.Sum64(), f.seed))
	wait := f.base
	if f.constantBackoff {
		wait = 2 * f.base // long enough for CL-07 and CL-13 to judge
	}
	for attempt := 1; ; attempt++ {
		status, ra, err := f.attempt(ctx, c, attempt)
		switch {
		case err == nil && status < 300:
			return nil
		case err != nil && (f.noConnectionRetry || ctx.Err() != nil):
			return err
		case err == nil && status >= 400 && status < 500 && status != 408 && status != 429 && !f.retry4xx:
			return fmt.Errorf("status %d", status)
		case c.Method == http.MethodPost && c.Key == "" && !f.retryUnkeyedPost:
			return fmt.Errorf("status %d, not retried: a POST without a key", status)
		case f.final429 && status == http.StatusTooManyRequests:
			return fmt.Errorf("status %d", status)
		case !f.noCap && attempt >= p.MaxAttempts:
			return fmt.Errorf("gave up after %d attempts: status %d, %v", attempt, status, err)
		}
		d := wait
		switch {
		case f.jitterCap > 0:
			d += time.Duration(rng.Int64N(int64(f.jitterCap)))
		case !f.noJitter:
			d = time.Duration(float64(wait) * (0.5 + rng.Float64())) // ±50 %
			if f.constantBackoff {
				// ±25 %: a constant wait's medians must not drift 1.5×
				// apart by chance (CL-07), yet still spread (CL-13).
				d = time.Duration(float64(wait) * (0.75 + rng.Float64()/2))
			}
		}
		if !f.constantBackoff {
			wait *= 2
		}
		if v, ok := f.retryAfter(ra); ok && !f.ignoreRetryAfter {
			d = v
		}
		if dl, ok := ctx.Deadline(); ok && !f.waitPastDeadline && time.Now().Add(d).After(dl) {
			return fmt.Errorf("giving up: a wait of %s passes the deadline", d)
		}
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (f *fakeClient) retryAfter(v string) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(v); err == nil {
		return time.Duration(n) * time.Second, true
	}
	if f.secondsOnly {
		return 0, false
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return time.Until(t), true
}

func (f *fakeClient) attempt(ctx context.Context, c Call, n int) (int, string, error) {
	opDeadline, hasDeadline := ctx.Deadline()
	if t := f.policy.AttemptTimeout; t > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, c.Method, c.URL, strings.NewReader(c.Body))
	if err != nil {
		return 0, "", err
	}
	if hasDeadline && f.policy.Deadline > 0 {
		left := time.Until(opDeadline)
		if f.freshBudget {
			left = f.policy.Deadline
		}
		headers.SetTimeout(req.Header, headers.RequestTimeoutMs, left)
	}
	if key := c.Key; key != "" {
		if f.newKeyPerAttempt && n > 1 {
			key = uuid.NewString()
		}
		req.Header.Set(c.KeyHeader, key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
			err = fmt.Errorf("attempt %d timed out: %w", n, errors.New("timeout"))
		}
		return 0, "", err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header.Get("Retry-After"), nil
}
