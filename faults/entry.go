package faults

import (
	"net/http"
	"strings"
	"time"
)

// Entry is one exchange as a proxy saw it: a request from a client and what
// became of it. Times carry monotonic readings when recorded live; a zero
// time means the step never happened (e.g. Forwarded on an abort).
type Entry struct {
	// Seq orders entries within a journal, from 1, in the order they finished.
	Seq uint64
	// ID is unique within a journal: the side and a per-proxy counter.
	ID string
	// Side names the proxy: "front", "dependency", or what WithSide set.
	Side string
	// Seed is the seed of the proxy that recorded the entry.
	Seed uint64
	// Conn identifies the client connection within the proxy, from 1.
	Conn uint64
	// Proto is the request's protocol version, "HTTP/1.1" or "HTTP/2.0"; it
	// says what Conn means: one exchange at a time, or many streams.
	Proto string
	// Start is the journal's start, the origin of the JSON offsets.
	Start time.Time

	Received  time.Time // request headers read
	Forwarded time.Time // first copy sent upstream (or to the stand-in)
	// Sent is when the first copy's request head was written upstream,
	// after any dial and TLS handshake: the earliest the upstream can have
	// read it. Zero for the stand-in, or when it was never written.
	Sent       time.Time
	Answered   time.Time // first upstream response headers received
	Finished   time.Time // response done, lost or abandoned
	ClientGone time.Time // client went away before Finished; zero if it did not

	Method string
	Path   string
	Query  string
	// Headers holds the journaled request headers present, by canonical
	// name; repeated values are joined with ", ".
	Headers map[string]string
	// Status is the status sent to the client; 0 if none was (reset, close,
	// client gone).
	Status int
	// ResponseHeaders holds the journaled response headers sent.
	ResponseHeaders map[string]string
	BytesIn         int64  // request body bytes read
	BytesOut        int64  // response body bytes written
	BodySHA256      string // first 16 bytes of the body's SHA-256, hex; empty for no body

	Rule  string // rule applied, or ""
	Fault string // its fault type, or ""
	// UpstreamCalls counts copies delivered upstream (2+ under duplicate).
	UpstreamCalls int
	// UpstreamStatuses lists the upstream status of each copy, 0 for a failed one.
	UpstreamStatuses []int
	// UpstreamGRPCStatuses lists the grpc-status each copy was answered
	// with, in UpstreamStatuses' order, -1 where none is known; nil when no
	// copy was a gRPC answer. Read it with UpstreamGRPC.
	UpstreamGRPCStatuses []int
	// Outcome is one of the Outcome* constants.
	Outcome string
	// Error describes an upstream failure or why the request was refused.
	Error string
}

// Outcomes of an exchange.
const (
	OutcomePassed        = "passed"         // forwarded and answered, no rule applied
	OutcomeFaulted       = "faulted"        // a rule's fault handled it
	OutcomeUpstreamError = "upstream-error" // the upstream could not be reached or failed
	OutcomeClientGone    = "client-gone"    // the client left before the answer
	OutcomeRejected      = "rejected"       // refused by the proxy: oversized, not for our upstream
	OutcomeShutdown      = "shutdown"       // the proxy closed while it was in flight
)

// Header returns the journaled request header name, or "".
func (e *Entry) Header(name string) string { return e.Headers[http.CanonicalHeaderKey(name)] }

// UpstreamGRPC returns the grpc-status copy i was answered with upstream
// (or by the stand-in), from the headers of a Trailers-Only answer or the
// trailers; ok is false where none is known: the copy was no gRPC answer,
// failed, or its body was not read to the end.
func (e *Entry) UpstreamGRPC(i int) (code int, ok bool) {
	if i < 0 || i >= len(e.UpstreamGRPCStatuses) || e.UpstreamGRPCStatuses[i] < 0 {
		return 0, false
	}
	return e.UpstreamGRPCStatuses[i], true
}

// ResponseHeader returns the journaled response header name, or "".
func (e *Entry) ResponseHeader(name string) string {
	return e.ResponseHeaders[http.CanonicalHeaderKey(name)]
}

// Offset returns t as a duration since the journal's start, or -1 if t is zero.
func (e *Entry) Offset(t time.Time) time.Duration {
	if t.IsZero() {
		return -1
	}
	return t.Sub(e.Start)
}

// DefaultRequestHeaders returns the request headers journaled by default:
// idempotency key, deadline headers, tenant and attempt markers.
func DefaultRequestHeaders() []string {
	return []string{
		"Idempotency-Key", "X-Request-Timeout-Ms", "Grpc-Timeout",
		"X-Envoy-Upstream-Rq-Timeout-Ms", "X-Envoy-Expected-Rq-Timeout-Ms",
		"X-Tenant-Id", "X-Attempt", "X-Envoy-Attempt-Count", "Grpc-Previous-Rpc-Attempts",
		"X-Request-Id",
	}
}

// DefaultResponseHeaders returns the response headers journaled by default;
// a trailing * matches any suffix.
func DefaultResponseHeaders() []string {
	// RateLimit* covers draft -10's pair and the older RateLimit-Limit,
	// -Remaining and -Reset fields; X-Rate-Limit-* is a common legacy spelling.
	// Content-Type tells a tier that passed an answer on from one that put
	// a page of its own in its place. gRPC's status and pushback are its
	// answer and its Retry-After; relayed in trailers, they are journaled
	// as if sent in headers.
	return []string{"Retry-After", "Content-Type", "RateLimit*", "X-RateLimit-*", "X-Rate-Limit-*",
		"Grpc-Status", "Grpc-Message", "Grpc-Retry-Pushback-Ms"}
}

// headerPicker copies selected headers; names ending in * are prefixes.
type headerPicker struct {
	exact    []string
	prefixes []string
}

func newHeaderPicker(names []string) headerPicker {
	var hp headerPicker
	for _, n := range names {
		if p, ok := strings.CutSuffix(n, "*"); ok {
			hp.prefixes = append(hp.prefixes, strings.ToLower(p))
			continue
		}
		hp.exact = append(hp.exact, http.CanonicalHeaderKey(n))
	}
	return hp
}

func (hp *headerPicker) pick(h http.Header) map[string]string {
	var out map[string]string
	put := func(k string, v []string) {
		if out == nil {
			out = make(map[string]string, 4)
		}
		out[k] = strings.Join(v, ", ")
	}
	for _, k := range hp.exact {
		// net/http keeps a nil Content-Type to say "do not sniff": absent.
		if v, ok := h[k]; ok && len(v) > 0 {
			put(k, v)
		}
	}
	if len(hp.prefixes) == 0 {
		return redactCredentials(out)
	}
	for k, v := range h {
		lk := strings.ToLower(k)
		for _, p := range hp.prefixes {
			if strings.HasPrefix(lk, p) {
				put(k, v)
				break
			}
		}
	}
	return redactCredentials(out)
}
