package suites

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// call is one request of a logical operation.
type call struct {
	key     string // idempotency key; empty sends none
	rawKey  bool   // send key verbatim instead of in the target's key format
	tenant  string
	alt     bool // the alternative payload
	amount  int
	timeout time.Duration // client-side timeout; 0 means 10 s
	header  http.Header   // extra headers
	op      *Operation    // the operation to send; nil means Harness.Operation
}

// reply is what came back: a status or a transport error.
type reply struct {
	status int
	header http.Header
	body   []byte
	err    error
	took   time.Duration
}

func (r reply) String() string {
	if r.err != nil {
		return "error: " + r.err.Error()
	}
	return strconv.Itoa(r.status) + " " + http.StatusText(r.status)
}

// maxReplyBody bounds what the harness keeps of a target's answer.
const maxReplyBody = 1 << 20

// send performs c through the front proxy.
func (h *Harness) send(ctx context.Context, c call) reply {
	operation := h.Operation
	if c.op != nil {
		operation = *c.op
	}
	op, err := operation.render(Values{Key: c.key, Tenant: c.tenant, Amount: c.amount}, c.alt)
	if err != nil {
		return reply{err: err}
	}
	timeout := c.timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, op.Method, h.TargetURL+op.Path, bytes.NewReader(op.Body))
	if err != nil {
		return reply{err: err}
	}
	// net/http replays a request on a reused connection that closes when it
	// carries an Idempotency-Key and a rewindable body. The harness must own
	// every attempt, so the body is made non-rewindable.
	req.GetBody = nil
	for k, vs := range op.Header {
		req.Header[k] = vs
	}
	if c.key != "" {
		k := c.key
		if !c.rawKey {
			k = h.Conventions.formatKey(k)
		}
		req.Header[http.CanonicalHeaderKey(h.keyHeaderOf(operation))] = []string{k}
	}
	h.Conventions.setTenant(req.Header, c.tenant)
	for k, vs := range c.header {
		req.Header[k] = vs
	}
	start := time.Now()
	resp, err := h.client().Do(req)
	if err != nil {
		return reply{err: err, took: time.Since(start)}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxReplyBody))
	return reply{status: resp.StatusCode, header: resp.Header, body: b, err: err, took: time.Since(start)}
}

// succeeded reports whether r means the operation took effect.
func (h *Harness) succeeded(r reply) bool { return h.Operation.succeeded(r) }

// succeeded reports whether r means o took effect.
func (o Operation) succeeded(r reply) bool {
	if r.err != nil {
		return false
	}
	if len(o.Success) > 0 {
		return slices.Contains(o.Success, r.status)
	}
	return r.status >= 200 && r.status < 300
}

func (h *Harness) client() *http.Client {
	if h.Client != nil {
		return h.Client
	}
	return defaultClient
}

var defaultClient = &http.Client{Transport: &http.Transport{
	Proxy:               nil, // never through an environment proxy: loopback targets
	MaxIdleConnsPerHost: 64,
}}
