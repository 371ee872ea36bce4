package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/resilcheck/resilcheck/headers"
	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

// maxResponseBytes caps a service response the gateway buffers; the whole
// body is read before answering so a deadline mid-body yields a clean 504.
const maxResponseBytes = 1 << 20

// forwardedRequest and forwardedResponse list the fields that cross the
// gateway (stack.md); everything else stays behind.
var (
	forwardedRequest  = []string{"Content-Type", "Idempotency-Key", "X-Tenant-ID", "Webhook-Id", "Webhook-Timestamp", "Webhook-Signature"}
	forwardedResponse = []string{"Content-Type", "Retry-After", "Idempotent-Replayed", "Location"}
)

// errBudgetSpent reports a budget exhausted before a call could be made.
var errBudgetSpent = errors.New("gateway: budget spent before calling the service")

// upstream is one buffered answer from the service.
type upstream struct {
	status int
	header http.Header
	body   []byte
}

// proxy forwards r to the service under the caller's budget.
func (g *Gateway) proxy(w http.ResponseWriter, r *http.Request, tenant, path string, start time.Time) {
	budget, ok, err := headers.Timeout(r.Header)
	switch {
	case err != nil:
		writeProblem(w, problem(http.StatusBadRequest, probBadTimeout, "Invalid timeout", err.Error()))
		return
	case ok && budget <= 0:
		g.deadlineExceeded(w, "the request arrived with no budget left")
		return
	case !ok || budget > g.cfg.maxBudget:
		budget = g.cfg.maxBudget
	}
	if len(r.Header.Values("Idempotency-Key")) > 1 {
		// Forwarding one would pick a key the client did not unambiguously
		// send; the service refuses several lines too.
		writeProblem(w, problem(http.StatusBadRequest, probBadKey, "Invalid Idempotency-Key",
			"the request carries several Idempotency-Key fields; send exactly one"))
		return
	}
	var payload []byte
	if r.Method == http.MethodPost {
		if payload, err = io.ReadAll(http.MaxBytesReader(w, r.Body, g.cfg.maxBodyBytes)); err != nil {
			g.bodyError(w, err)
			return
		}
	}
	select {
	case g.slots <- struct{}{}:
		defer func() { <-g.slots }()
	default:
		g.shed(w)
		return
	}
	ctx, cancel := context.WithDeadline(r.Context(), start.Add(budget))
	defer cancel()
	up, err := g.call(ctx, r, tenant, path, payload)
	if err != nil {
		g.callError(ctx, w, r, err)
		return
	}
	g.respond(w, up)
}

// call makes the downstream request once, or up to three times under the
// retry-every-tier defect, or under gateway-resend-on-reset while the
// connection fails (the very retry RFC 9110 §9.2.2 forbids a proxy).
func (g *Gateway) call(ctx context.Context, r *http.Request, tenant, path string, payload []byte) (upstream, error) {
	attempts := 1
	onReset := g.cfg.defects.Has(defect.GatewayResendOnReset) && r.Method == http.MethodPost
	if onReset || g.cfg.defects.Has(defect.RetryEveryTier) && r.Method == http.MethodPost {
		attempts = 3
	}
	for i := 1; ; i++ {
		up, err := g.forward(ctx, r, tenant, path, payload)
		failed := err != nil || up.status >= 500
		if onReset {
			// A proxy's "next upstream on error": at once, on any transport
			// error, a body cut short after the status included (nginx's
			// "error" covers both); errBudgetSpent sent nothing.
			if err == nil || errors.Is(err, errBudgetSpent) || i >= attempts || ctx.Err() != nil {
				return up, err
			}
			g.log.Debug("gateway: re-sending after a connection failure (gateway-resend-on-reset)", "attempt", i, "err", err)
			continue
		}
		if !failed || i >= attempts || ctx.Err() != nil {
			return up, err
		}
		g.log.Debug("gateway: retrying the service (retry-every-tier)", "attempt", i, "status", up.status, "err", err)
		if !sleepCtx(ctx, g.backoff(i)) {
			return upstream{}, fmt.Errorf("gateway: budget ran out between attempts: %w", ctx.Err())
		}
	}
}

func (g *Gateway) forward(ctx context.Context, r *http.Request, tenant, path string, payload []byte) (upstream, error) {
	deadline, _ := ctx.Deadline()
	if time.Until(deadline) < time.Millisecond {
		return upstream{}, errBudgetSpent
	}
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, g.service.String()+path, body)
	if err != nil {
		return upstream{}, fmt.Errorf("gateway: build service request: %w", err)
	}
	// net/http replays a request whose body it can rewind and that carries an
	// Idempotency-Key when a reused connection fails after sending it; that is
	// a hidden proxy retry of a POST (HS-14), so the body is made one-shot.
	req.GetBody = nil
	for _, k := range forwardedRequest {
		if v := r.Header.Get(k); v != "" {
			req.Header.Set(k, v)
		}
	}
	req.Header.Set("X-Tenant-ID", tenant)
	if !g.cfg.defects.Has(defect.NoDeadlinePropagation) {
		headers.SetTimeout(req.Header, headers.RequestTimeoutMs, time.Until(deadline))
	}
	resp, err := g.client.Do(req)
	if err != nil {
		return upstream{}, fmt.Errorf("gateway: call service: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return upstream{}, fmt.Errorf("gateway: read service response: %w", err)
	}
	if len(b) > maxResponseBytes {
		return upstream{}, fmt.Errorf("gateway: service response over %d bytes", maxResponseBytes)
	}
	return upstream{status: resp.StatusCode, header: resp.Header, body: b}, nil
}

// respond copies the service's answer; 429/503 get the retry-after defects.
func (g *Gateway) respond(w http.ResponseWriter, up upstream) {
	h := w.Header()
	for _, k := range forwardedResponse {
		if v := up.header.Values(k); len(v) > 0 {
			h[k] = v
		}
	}
	if up.status == http.StatusTooManyRequests || up.status == http.StatusServiceUnavailable {
		if g.cfg.defects.Has(defect.NoRetryAfterHeader) || g.cfg.defects.Has(defect.BadRetryAfter) {
			g.setRetryAfter(h, 0)
		}
	}
	w.WriteHeader(up.status)
	_, _ = w.Write(up.body)
}

func (g *Gateway) callError(ctx context.Context, w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case r.Context().Err() != nil:
		// The caller went away; the downstream call was cancelled with it and
		// nobody is left to read an answer.
		g.log.Info("gateway: caller disconnected", "path", r.URL.Path, "err", err)
	case errors.Is(err, errBudgetSpent) || ctx.Err() != nil:
		g.deadlineExceeded(w, "the service did not answer within the request's budget")
	default:
		g.log.Warn("gateway: service call failed", "err", err)
		writeProblem(w, problem(http.StatusBadGateway, probBadGateway, "Bad Gateway",
			"the payments service could not be reached or answered unreadably"))
	}
}

func (g *Gateway) deadlineExceeded(w http.ResponseWriter, detail string) {
	writeProblem(w, problem(http.StatusGatewayTimeout, probDeadline, "Gateway Timeout", detail))
}

func (g *Gateway) bodyError(w http.ResponseWriter, err error) {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		writeProblem(w, problem(http.StatusRequestEntityTooLarge, probTooLarge, "Content Too Large",
			fmt.Sprintf("request bodies are limited to %d bytes", g.cfg.maxBodyBytes)))
		return
	}
	writeProblem(w, problem(http.StatusBadRequest, probBadBody, "Bad Request", "the request body could not be read"))
}

// shed refuses a request beyond the concurrency limit without calling the
// service.
func (g *Gateway) shed(w http.ResponseWriter) {
	g.setRetryAfter(w.Header(), time.Second)
	writeProblem(w, Problem{Type: ProblemReducedCapacity, Title: "Service Unavailable",
		Status: http.StatusServiceUnavailable,
		Detail: fmt.Sprintf("more than %d requests are in flight; retry shortly", g.cfg.maxConcurrent)})
}

// backoff is the retry-every-tier defect's wait before retry n: full jitter
// over 10·2ⁿ ms, drawn from the seeded source.
func (g *Gateway) backoff(n int) time.Duration {
	ceil := 10 * time.Millisecond << n
	g.rngMu.Lock()
	defer g.rngMu.Unlock()
	return time.Duration(g.rng.Int64N(int64(ceil)))
}

// sleepCtx waits d or until ctx ends, reporting whether the wait completed.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
