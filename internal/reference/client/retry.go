package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/resilcheck/resilcheck/headers"
	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

// Header names the gateway contract uses that package headers does not name.
const (
	hdrIdempotencyKey = "Idempotency-Key"
	hdrTenant         = "X-Tenant-ID"
	hdrRetryAfter     = "Retry-After"
	hdrReplayed       = "Idempotent-Replayed"
)

const maxBody = 1 << 20 // response bodies beyond 1 MiB are truncated

// call is one logical operation: the same method, URL, body and key on
// every attempt (IK-10).
type call struct {
	op, method, url string
	body            []byte
	key             string // empty: no Idempotency-Key (idempotent methods)
}

type response struct {
	status   int
	header   http.Header
	body     []byte
	attempts int
}

// do runs c's attempts until a final answer, a non-retryable status or a
// reason to give up. The deadline covers every attempt and wait (DL-08).
func (c *Client) do(ctx context.Context, k call) (*response, error) {
	deadline := time.Now().Add(c.deadline)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	var last error
	for n := 1; ; n++ {
		remaining := time.Until(deadline)
		if remaining < time.Millisecond { // X-Request-Timeout-Ms: 0 would mean "already expired"
			return nil, c.giveUp(k, n-1, ErrDeadline, last)
		}
		if n > 1 && k.key != "" && c.defects.Has(defect.ClientNewKeyPerAttempt) {
			k.key = c.newKey()
		}
		a := Attempt{Op: k.op, N: n, Key: k.key, Budget: min(c.attemptTimeout, remaining)}
		res, err := c.send(ctx, k, &a)
		switch {
		case err == nil && res.status < 300:
			c.report(ctx, a)
			res.attempts = n
			return res, nil
		case err == nil:
			serr := statusError(res, n)
			if !c.retryable(res.status) {
				c.report(ctx, a)
				return nil, serr
			}
			last = serr
		case ctx.Err() != nil:
			c.report(ctx, a)
			return nil, c.giveUp(k, n, ctxCause(ctx), err)
		default:
			last = err
		}
		if c.capReached(n) {
			c.report(ctx, a)
			return nil, c.giveUp(k, n, ErrAttemptsExhausted, last)
		}
		wait, err := c.nextDelay(n-1, a.RetryAfter, a.HasRetryAfter, time.Until(deadline))
		if err != nil {
			c.report(ctx, a)
			return nil, c.giveUp(k, n, err, last)
		}
		a.Retry, a.Wait = true, wait
		c.report(ctx, a)
		waitCtx := ctx
		if c.defects.Has(defect.ClientWaitPastDeadline) {
			waitCtx = context.WithoutCancel(ctx) // the deadline bounds attempts only
		}
		if err := sleep(waitCtx, wait); err != nil {
			return nil, c.giveUp(k, n, ctxCause(ctx), last)
		}
	}
}

// send makes one attempt with its own timeout and fills a with what
// happened. A returned error is a transport failure or ErrAttemptTimeout.
func (c *Client) send(ctx context.Context, k call, a *Attempt) (*response, error) {
	actx, cancel := context.WithTimeout(ctx, a.Budget)
	defer cancel()
	start := time.Now()
	defer func() { a.Latency = time.Since(start) }()
	stated := a.Budget
	if c.defects.Has(defect.ClientStaleBudget) {
		stated = c.deadline
	}
	res, err := c.roundTripHedged(actx, k, stated)
	if err != nil {
		if ctx.Err() == nil && actx.Err() != nil {
			// Drop the context error: errors.Is(err, context.DeadlineExceeded)
			// is reserved for the overall deadline.
			err = fmt.Errorf("client: attempt %d: no response within %s: %w", a.N, a.Budget, ErrAttemptTimeout)
		} else {
			err = fmt.Errorf("client: attempt %d: %w", a.N, err)
		}
		a.Err = err
		return nil, err
	}
	a.Status = res.status
	a.RetryAfter, a.HasRetryAfter, a.BadRetryAfter = retryAfter(res.header, time.Now())
	return res, nil
}

func (c *Client) roundTrip(ctx context.Context, k call, budget time.Duration) (*response, error) {
	var body io.Reader
	if k.body != nil {
		body = bytes.NewReader(k.body)
	}
	req, err := http.NewRequestWithContext(ctx, k.method, k.url, body)
	if err != nil {
		return nil, err
	}
	// The retry loop owns every attempt: stop net/http from replaying a
	// request carrying an Idempotency-Key on its own when a reused connection dies.
	req.GetBody = nil
	req.Header.Set("Accept", "application/json, application/problem+json")
	if k.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if k.key != "" {
		req.Header.Set(hdrIdempotencyKey, sfString(k.key))
	}
	if c.tenant != "" {
		req.Header.Set(hdrTenant, c.tenant)
	}
	headers.SetTimeout(req.Header, headers.RequestTimeoutMs, budget)
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("reading %d response: %w", resp.StatusCode, err)
	}
	return &response{status: resp.StatusCode, header: resp.Header, body: b}, nil
}

// retryableStatus: 409 is an in-progress duplicate (same key, no correction
// needed, IK-08), 429 and 5xx are transient. Every other 4xx needs the
// caller to change the request, so retrying it is pointless.
func retryableStatus(status int) bool {
	return status == http.StatusConflict || status == http.StatusTooManyRequests || status >= 500
}

// retryAfter reads Retry-After as a delay from receipt. An HTTP-date is
// measured against the response's Date header when present, so a skewed
// local clock cannot make the client come back early.
func retryAfter(h http.Header, now time.Time) (d time.Duration, ok bool, bad string) {
	vs := h.Values(hdrRetryAfter)
	if len(vs) == 0 {
		return 0, false, ""
	}
	if len(vs) > 1 {
		return 0, false, fmt.Sprint(vs)
	}
	ref := now
	if date, err := http.ParseTime(h.Get("Date")); err == nil {
		ref = date
	}
	ra, err := headers.ParseRetryAfter(vs[0], ref)
	if err != nil {
		return 0, false, vs[0]
	}
	return ra.Delay, true, ""
}

func (c *Client) report(ctx context.Context, a Attempt) {
	if a.BadRetryAfter != "" {
		c.log.LogAttrs(ctx, slog.LevelWarn, "client: invalid Retry-After ignored, using backoff",
			slog.String("op", a.Op), slog.Int("attempt", a.N), slog.String("retry_after", a.BadRetryAfter))
	}
	c.log.LogAttrs(ctx, slog.LevelDebug, "client: attempt",
		slog.String("op", a.Op), slog.Int("attempt", a.N), slog.String("key", a.Key),
		slog.Duration("budget", a.Budget), slog.Duration("latency", a.Latency), slog.Int("status", a.Status),
		slog.Any("err", a.Err), slog.Bool("retry", a.Retry), slog.Duration("wait", a.Wait))
	if c.onAttempt != nil {
		c.onAttempt(a)
	}
}

func (c *Client) giveUp(k call, attempts int, cause, last error) error {
	return &RetryError{Op: k.op, Key: k.key, Attempts: attempts, Cause: cause, Last: last}
}

// ctxCause maps the operation context's end to ErrDeadline or the caller's
// cancellation cause.
func ctxCause(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return ErrDeadline
	}
	return context.Cause(ctx)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
