package faults

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
)

// A Copier streams a response body from src to the client through dst. It
// must honour ex.Context (use ex.Sleep to wait) and may cut the body by
// returning ex.Lose(mode).
type Copier func(ex *Exchange, dst io.Writer, src io.Reader) error

// Reply relays resp (status, headers, body) to the client and closes its body.
func (ex *Exchange) Reply(resp *http.Response) error { return ex.ReplyWith(resp, nil) }

// ReplyWith is Reply with the body streamed by copy (nil: as fast as the
// client reads).
func (ex *Exchange) ReplyWith(resp *http.Response, copy Copier) error {
	defer resp.Body.Close()
	h := ex.w.Header()
	for k, v := range resp.Header {
		h[k] = v
	}
	if _, ok := resp.Header["Content-Type"]; !ok {
		h["Content-Type"] = nil // relay the upstream's answer; do not sniff one
	}
	removeHopHeaders(h)
	ex.writeHeader(resp.StatusCode)
	dst := &clientWriter{ex: ex, flush: resp.ContentLength < 0}
	if copy == nil {
		copy = copyAll
	}
	err := copy(ex, dst, resp.Body)
	if err != nil && dst.err == nil && ex.ctx.Err() == nil {
		// The upstream broke off mid-body: cut the client's body too, so it
		// sees a broken response rather than a short one that looks whole.
		ex.noteError(err)
		return ex.Lose(LoseClose)
	}
	if err == nil && ex.lose == "" {
		if resp.ContentLength < 0 && len(resp.Trailer) > 0 {
			// Headers still buffered when the handler returns get a
			// Content-Length from net/http (0 for gRPC's bodiless error
			// answer), which the upstream did not send and which makes
			// nginx's grpc_pass drop the trailers and grpc-status with
			// them. Sent now, they carry the upstream's framing.
			if err := dst.Flush(); err != nil {
				return nil // the client is gone; the exchange ends as for a failed write
			}
		}
		relayTrailers(h, resp.Trailer)
	}
	return nil
}

// relayTrailers passes the upstream's trailers (filled in once its body was
// read to the end) on to the client: gRPC's status travels in them. The
// TrailerPrefix form needs no Trailer header announced before the body, so
// the response's framing is what it would be without them; a client the
// server cannot send trailers to (HTTP/1.1 with a Content-Length) does not
// get them.
func relayTrailers(h, trailer http.Header) {
	for k, vs := range trailer {
		if len(vs) > 0 {
			h[http.TrailerPrefix+k] = vs
		}
	}
}

// Respond answers the client itself with status, headers and body, without
// contacting the upstream.
func (ex *Exchange) Respond(status int, headers map[string]string, body []byte) error {
	h := ex.w.Header()
	for k, v := range headers {
		h.Set(k, v)
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	ex.writeHeader(status)
	_, err := (&clientWriter{ex: ex}).Write(body)
	return err
}

func (ex *Exchange) writeHeader(status int) {
	if ex.started {
		return
	}
	ex.started, ex.status = true, status
	if ex.closing {
		// HTTP/2 has no Connection header; net/http's server reads this one
		// as a request for GOAWAY and drops it from the frame (RFC 9113
		// §8.2.2 forbids sending it).
		ex.w.Header().Set("Connection", "close")
	}
	if r := ex.r; r.ProtoMajor == 1 && len(r.TransferEncoding) > 0 {
		// A request with Content-Length and Transfer-Encoding must close the
		// connection after its answer (RFC 9112 §6.1). net/http drops the
		// Content-Length before the handler sees it, so every chunked
		// request closes: either side may close at any time (§9.6).
		ex.w.Header().Set("Connection", "close")
	}
	ex.w.WriteHeader(status)
}

var copyBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func copyAll(_ *Exchange, dst io.Writer, src io.Reader) error {
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	_, err := io.CopyBuffer(dst, src, *bp)
	return err
}

// clientWriter writes response body bytes to the client, counting them,
// extending the stall deadline and flushing streamed bodies.
type clientWriter struct {
	ex    *Exchange
	flush bool
	err   error
}

func (cw *clientWriter) Write(b []byte) (int, error) {
	if cw.err != nil {
		return 0, cw.err
	}
	ex := cw.ex
	rc := ex.controller()
	_ = rc.SetWriteDeadline(ex.p.clock.Now().Add(ex.p.limits.WriteStallTimeout))
	n, err := ex.w.Write(b)
	ex.entry.BytesOut += int64(n)
	if err == nil && cw.flush {
		err = rc.Flush()
	}
	if err != nil {
		cw.err = errClientWrite{err}
		return n, cw.err
	}
	return n, nil
}

// Flush sends buffered bytes to the client now, within the write stall
// timeout, as Write does.
func (cw *clientWriter) Flush() error {
	ex := cw.ex
	rc := ex.controller()
	_ = rc.SetWriteDeadline(ex.p.clock.Now().Add(ex.p.limits.WriteStallTimeout))
	if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

// errClientWrite marks a failure to write to the client, which ends the
// exchange as client-gone rather than as an upstream error.
type errClientWrite struct{ err error }

func (e errClientWrite) Error() string { return "faults: write to client: " + e.err.Error() }
func (e errClientWrite) Unwrap() error { return e.err }
