package faults

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
)

// UpstreamError is a failure to get an answer from the upstream. The proxy
// answers the client 502, or 504 when it timed out.
type UpstreamError struct {
	URL string
	Err error
}

func (e *UpstreamError) Error() string { return fmt.Sprintf("faults: upstream %s: %v", e.URL, e.Err) }
func (e *UpstreamError) Unwrap() error { return e.Err }

// Status is the status the client gets for this error.
func (e *UpstreamError) Status() int {
	var ne net.Error
	if errors.As(e.Err, &ne) && ne.Timeout() {
		return http.StatusGatewayTimeout
	}
	return http.StatusBadGateway
}

// Forward delivers one copy of the request upstream (or to the stand-in's
// default answer) and returns the response, whose body the caller must
// close or pass to Reply. Each call is a separate delivery, so calling it
// twice duplicates the request. It is safe to call concurrently.
func (ex *Exchange) Forward() (*http.Response, error) {
	ex.noteForwarded()
	if ex.p.upstream == nil {
		resp, err := ex.p.standInResponse(ex)
		ex.noteAnswered(resp, err)
		return resp, err
	}
	resp, err := ex.p.transport.RoundTrip(ex.outbound())
	if err != nil && ex.ctx.Err() == nil {
		err = &UpstreamError{URL: ex.p.upstream.Redacted(), Err: err}
	}
	ex.noteAnswered(resp, err)
	return resp, err
}

// outbound is the copy of the client's request sent upstream, traced so
// that Entry.Sent is stamped once its head is written.
func (ex *Exchange) outbound() *http.Request {
	in := ex.r
	out := in.Clone(httptrace.WithClientTrace(ex.ctx, &httptrace.ClientTrace{WroteHeaders: ex.noteSent}))
	u := *ex.p.upstream
	// Keep the client's escaping (e.g. %2F stays %2F), as the lean path does.
	u.Path, u.RawPath = joinPath(u.Path, in.URL.Path), joinPath(ex.p.upstream.EscapedPath(), in.URL.EscapedPath())
	if u.RawQuery == "" {
		u.RawQuery = in.URL.RawQuery
	} else if in.URL.RawQuery != "" {
		u.RawQuery += "&" + in.URL.RawQuery
	}
	out.URL, out.Host, out.RequestURI = &u, u.Host, ""
	out.Proto, out.ProtoMajor, out.ProtoMinor = "HTTP/1.1", 1, 1
	out.TransferEncoding, out.Close, out.Trailer = nil, false, nil
	removeHopHeaders(out.Header)
	if ex.p.upstreamH2 {
		keepTrailers(out, in)
	}
	out.ContentLength = int64(len(ex.body))
	if len(ex.body) == 0 {
		out.Body, out.GetBody = nil, nil
		if in.ContentLength != 0 || in.Method == http.MethodPost || in.Method == http.MethodPut || in.Method == http.MethodPatch {
			out.Body = http.NoBody
		}
	} else {
		// No GetBody: net/http would otherwise replay the request on a reused
		// connection that dies whenever it carries an Idempotency-Key, a second
		// delivery the journal never sees (and RFC 9110 §9.2.2 forbids a proxy).
		// Duplicates are the duplicate fault's business, via Forward.
		out.Body, out.GetBody = io.NopCloser(bytes.NewReader(ex.body)), nil
	}
	return out
}

// keepTrailers gives an HTTP/2 upstream what gRPC needs of the request's
// end-to-end fields: "TE: trailers" (the one TE value HTTP/2 allows, RFC
// 9113 §8.2.2; gRPC servers may insist on it) and the request's trailers,
// which net/http filled in when the body was read.
func keepTrailers(out, in *http.Request) {
	for _, v := range in.Header.Values("Te") {
		if strings.Contains(strings.ToLower(v), "trailers") {
			out.Header.Set("Te", "trailers")
			break
		}
	}
	if len(in.Trailer) > 0 {
		out.Trailer = in.Trailer.Clone()
	}
}

func joinPath(base, p string) string {
	if base == "" || base == "/" {
		if p == "" {
			return "/"
		}
		return p
	}
	return strings.TrimSuffix(base, "/") + "/" + strings.TrimPrefix(p, "/")
}

// hopHeaders are meaningful for one connection only (RFC 9110 §7.6.1), plus
// Expect, because the body is already buffered.
var hopHeaders = []string{
	"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade", "Expect",
}

func removeHopHeaders(h http.Header) {
	for _, f := range h.Values("Connection") {
		for name := range strings.SplitSeq(f, ",") {
			if name = strings.TrimSpace(name); name != "" {
				h.Del(name)
			}
		}
	}
	for _, k := range hopHeaders {
		delete(h, k)
	}
}

func (ex *Exchange) noteForwarded() {
	ex.mu.Lock()
	if ex.entry.Forwarded.IsZero() {
		ex.entry.Forwarded = ex.p.clock.Now()
	}
	ex.entry.UpstreamCalls++
	ex.mu.Unlock()
}

// noteSent stamps Entry.Sent once: the first copy's head is written.
func (ex *Exchange) noteSent() {
	ex.mu.Lock()
	if ex.entry.Sent.IsZero() {
		ex.entry.Sent = ex.p.clock.Now()
	}
	ex.mu.Unlock()
}

func (ex *Exchange) noteAnswered(resp *http.Response, err error) {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if err != nil {
		ex.entry.UpstreamStatuses = append(ex.entry.UpstreamStatuses, 0)
		ex.noteNoGRPC()
		if ex.entry.Error == "" && !errors.Is(err, context.Canceled) {
			ex.entry.Error = err.Error()
		}
		return
	}
	if ex.entry.Answered.IsZero() {
		ex.entry.Answered = ex.p.clock.Now()
	}
	ex.entry.UpstreamStatuses = append(ex.entry.UpstreamStatuses, resp.StatusCode)
	ex.noteGRPC(len(ex.entry.UpstreamStatuses)-1, resp)
}
