package check

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// Call is one request of a logical operation.
type Call struct {
	Key     string // idempotency key; empty sends none
	RawKey  bool   // send key verbatim instead of in the target's key format
	Tenant  string
	Alt     bool // the alternative payload
	Amount  int
	Timeout time.Duration // client-side timeout; 0 means 10 s
	Header  http.Header   // extra headers
	Op      *Operation    // the operation to send; nil means Harness.Operation
}

// Reply is what came back: a status or a transport error. For a gRPC
// operation, Status is the HTTP status its grpc-status maps to
// (GRPCCode.HTTPStatus), and GRPC says the code itself.
type Reply struct {
	Status int
	Header http.Header
	Body   []byte
	Err    error
	Took   time.Duration
	Sent   time.Time // when the request was sent; Took later it was answered or given up
	// GRPC is the answer's gRPC status, nil for a plain HTTP operation or
	// an answer that carried none (then Err says why).
	GRPC *GRPCReply
}

// GRPCReply is a gRPC answer's status and message.
type GRPCReply struct {
	Code    GRPCCode
	Message string // grpc-message, percent-decoded
}

func (r Reply) String() string {
	if r.Err != nil {
		return "error: " + r.Err.Error()
	}
	if r.GRPC != nil {
		return r.GRPC.Code.String()
	}
	return strconv.Itoa(r.Status) + " " + http.StatusText(r.Status)
}

// MaxReplyBody bounds what the harness keeps of a target's answer.
const MaxReplyBody = 1 << 20

// Send performs c through the front proxy.
func (h *Harness) Send(ctx context.Context, c Call) Reply {
	operation := h.Operation
	if c.Op != nil {
		operation = *c.Op
	}
	op, err := operation.Prepare(Values{Key: c.Key, Tenant: c.Tenant, Amount: c.Amount}, c.Alt)
	if err != nil {
		return Reply{Err: err}
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, op.Method, h.TargetURL+op.Path, bytes.NewReader(op.Body))
	if err != nil {
		return Reply{Err: err}
	}
	// net/http replays a request on a reused connection that closes when it
	// carries an Idempotency-Key and a rewindable body. The harness must own
	// every attempt, so the body is made non-rewindable.
	req.GetBody = nil
	for k, vs := range op.Header {
		req.Header[k] = vs
	}
	if c.Key != "" {
		k := c.Key
		if !c.RawKey {
			k = h.Conventions.FormatKey(k)
		}
		req.Header[http.CanonicalHeaderKey(h.KeyHeaderOf(operation))] = []string{k}
	}
	h.Conventions.SetTenant(req.Header, c.Tenant)
	for k, vs := range c.Header {
		req.Header[k] = vs
	}
	start := time.Now()
	resp, err := h.HTTPClient().Do(req)
	if err != nil {
		return Reply{Err: err, Took: time.Since(start), Sent: start}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxReplyBody))
	r := Reply{Status: resp.StatusCode, Header: resp.Header, Body: b, Err: err, Took: time.Since(start), Sent: start}
	if operation.GRPC && err == nil {
		r = grpcReply(r, resp)
	}
	return r
}

// grpcReply judges r, a gRPC operation's answer whose body was drained,
// by its grpc-status: a 200 carrying one takes the status the code maps
// to; a 200 carrying none is a protocol error; another HTTP status came
// from no gRPC server (a proxy's refusal) and stays as it is.
func grpcReply(r Reply, resp *http.Response) Reply {
	if r.Status != http.StatusOK {
		return r
	}
	code, msg, err := grpcStatus(resp.Header, resp.Trailer)
	if err != nil {
		r.Err = err
		return r
	}
	r.GRPC = &GRPCReply{Code: code, Message: msg}
	r.Status = code.HTTPStatus()
	return r
}

// Succeeded reports whether r means the operation took effect.
func (h *Harness) Succeeded(r Reply) bool { return h.Operation.Succeeded(r) }

// Succeeded reports whether r means o took effect.
func (o Operation) Succeeded(r Reply) bool {
	if r.Err != nil {
		return false
	}
	if len(o.Success) > 0 {
		return slices.Contains(o.Success, r.Status)
	}
	return r.Status >= 200 && r.Status < 300
}

func (h *Harness) HTTPClient() *http.Client {
	if h.Client != nil {
		return h.Client
	}
	return defaultClient
}

var defaultClient = &http.Client{Transport: &http.Transport{
	Proxy:               nil, // never through an environment proxy: loopback targets
	MaxIdleConnsPerHost: 64,
}}
