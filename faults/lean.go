package faults

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"
)

// leanConn serves one client connection on the lean path: plain HTTP/1.1
// requests that no rule takes are parsed, forwarded and relayed on this one
// goroutine, without net/http's server and Transport, and journaled like any
// other exchange. The first request it cannot serve that way (a rule takes
// it, HTTP/2, an unusual head) hands the connection, unconsumed, to the
// net/http server for the rest of its life.
type leanConn struct {
	p       *Proxy
	s       *leanServer
	c       net.Conn
	id      uint64
	cr      connReader
	br      *bufio.Reader
	bw      *bufio.Writer
	req     reqHead
	resp    respHead
	out     []byte // outbound request head
	body    []byte // request body, kept when small
	scratch []byte // upstream response head
	served  int    // exchanges served on the connection

	mu        sync.Mutex // guards the fields below, shared with the watcher and Close
	active    bool       // an exchange is under way
	killed    bool       // the proxy closed the connection
	finished  bool       // the exchange is journaled; the watcher must not cut
	up        *upConn
	gone      time.Time
	watchDone chan struct{}
}

// connReader reads from the client connection, first the byte the watcher
// read while the exchange was under way, if it read one.
type connReader struct {
	c   net.Conn
	b   [1]byte
	has bool
}

func (cr *connReader) Read(p []byte) (int, error) {
	if cr.has && len(p) > 0 {
		p[0], cr.has = cr.b[0], false
		return 1, nil
	}
	return cr.c.Read(p)
}

// leanBufSize bounds request heads the lean path parses; larger ones go to
// net/http, which applies MaxHeaderBytes.
const leanBufSize = 8 << 10

// maxInterim bounds the 1xx answers skipped before the final one, as
// net/http's client does.
const maxInterim = 5

// maxResponseHead bounds an upstream response head.
const maxResponseHead = 1 << 20

// keepBody is the largest request body buffer a connection keeps between
// requests.
const keepBody = 64 << 10

var aLongTimeAgo = time.Unix(1, 0)

func (lc *leanConn) serve() {
	handed := false
	defer func() {
		lc.s.forget(lc)
		if !handed {
			lc.c.Close()
		}
	}()
	for {
		why, err := lc.readHead()
		if err != nil {
			return
		}
		if why == "" && lc.ruled() {
			why = "a rule may take it"
		}
		if why != "" {
			handed = lc.handOver()
			return
		}
		if !lc.begin() || !lc.exchange() {
			return
		}
		lc.served++
	}
}

// readHead waits for the next request head and parses it. It returns why the
// request must go to net/http, or "" if the lean path serves it; an error
// means the connection is done (idle timeout, closed, slow head).
func (lc *leanConn) readHead() (string, error) {
	p := lc.p
	// A new connection has ReadHeaderTimeout to start, as on net/http; a
	// kept-alive one waits IdleTimeout for its next request.
	wait := p.limits.ReadHeaderTimeout
	if lc.served > 0 {
		wait = p.limits.IdleTimeout
	}
	_ = lc.c.SetReadDeadline(time.Now().Add(wait))
	if lc.br.Buffered() == 0 {
		// Waiting for a request: a new client may take this slot meanwhile.
		markIdle(lc.c, true)
	}
	b, err := lc.br.Peek(1)
	markIdle(lc.c, false)
	if err != nil {
		return "", err
	}
	if b[0] < 'A' || b[0] > 'Z' {
		return "not a request line", nil
	}
	_ = lc.c.SetReadDeadline(time.Now().Add(p.limits.ReadHeaderTimeout))
	for {
		b, _ = lc.br.Peek(lc.br.Buffered())
		if n := headEnd(b); n > 0 {
			if n > p.limits.MaxHeaderBytes {
				return "head over MaxHeaderBytes", nil // net/http answers 431
			}
			return parseRequestHead(b[:n], &lc.req, p.limits.MaxBodyBytes), nil
		}
		if len(b) >= lc.br.Size() || len(b) > p.limits.MaxHeaderBytes {
			return "head larger than the lean buffer", nil
		}
		if _, err := lc.br.Peek(len(b) + 1); err != nil {
			return "", err
		}
	}
}

// ruled reports whether a rule's method, path and header criteria take the
// request. It decides nothing and counts nothing: net/http's path, which
// then serves the request, takes the rule's decision once.
func (lc *leanConn) ruled() bool {
	rs := lc.p.rules
	if len(*rs.cur.Load()) == 0 {
		return false
	}
	path, _ := lc.req.pathQuery()
	return rs.mayMatch(lc.req.request(path))
}

// handOver gives the connection, with its buffered bytes, to the net/http
// server.
func (lc *leanConn) handOver() bool {
	_ = lc.c.SetDeadline(time.Time{})
	// Leave the registry first: from now on the connection is net/http's to
	// drain or close, not the lean server's.
	lc.s.forget(lc)
	return lc.s.handOver(lc.c, lc.br, lc.id)
}

// begin marks the connection busy so a graceful shutdown waits for it.
func (lc *leanConn) begin() bool {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.killed {
		return false
	}
	lc.active, lc.finished, lc.up, lc.gone = true, false, nil, time.Time{}
	return true
}

// exchange serves one request whose head was parsed, and reports whether
// the connection may carry another.
func (lc *leanConn) exchange() (keep bool) {
	p, h := lc.p, &lc.req
	path, query := h.pathQuery()
	e := p.newEntry(lc.id, string(h.method), path, query)
	e.Proto = "HTTP/1.1" // the lean path takes nothing else
	e.Headers = p.reqHeaders.pickFields(h.fields, nil, false)
	lc.out = h.appendOutbound(lc.out[:0], p.upstream)
	head := string(h.method) == http.MethodHead
	clientClose := h.close
	n := h.contentLength
	_, _ = lc.br.Discard(h.size)
	p.metrics.inflight.Inc()
	defer p.metrics.inflight.Dec()
	defer lc.idle()

	body, got, err := lc.readBody(n)
	if err != nil {
		e.BytesIn = int64(got)
		if isTimeout(err) {
			lc.reject(&e, http.StatusRequestTimeout, fmt.Sprintf("faults: request body not received within %s", p.limits.BodyReadTimeout))
		} else {
			e.ClientGone, e.Error = p.clock.Now(), fmt.Sprintf("faults: read request body: %v", err)
			lc.record(&e)
		}
		return false
	}
	if len(body) > 0 {
		sum := sha256.Sum256(body)
		e.BytesIn, e.BodySHA256 = int64(len(body)), hex.EncodeToString(sum[:16])
	}

	e.Forwarded, e.UpstreamCalls = p.clock.Now(), 1
	defer lc.unwatch()
	uc, err := lc.forward(body)
	early := false
	switch {
	case err == nil:
		e.Sent = p.clock.Now()
		err = lc.readResponseHead(uc)
	case uc != nil && err != errClientLeft && p.ctx.Err() == nil && lc.readResponseHead(uc) == nil:
		// Writing failed, yet the upstream answered before taking the whole
		// body (a 413, say) and closed: relay that answer rather than a 502.
		// (With the client gone nothing was written: no answer will come.)
		early, err = true, nil
	}
	if err != nil {
		if uc != nil {
			uc.c.Close()
		}
		return lc.fail(&e, err, clientClose)
	}
	r := &lc.resp
	e.Answered, e.UpstreamStatuses = p.clock.Now(), []int{r.status}
	if lc.watchDone == nil && peek(lc.c) == peekClosed {
		// It left while the answer was on its way: nobody to relay it to.
		uc.c.Close()
		e.ClientGone = e.Answered
		lc.record(&e)
		return false
	}
	bodiless := r.bodiless(head)
	closeAfter := clientClose || (!bodiless && r.length < 0 && !r.chunked) || p.isClosed()
	lc.writeResponseHead(&e, bodiless, closeAfter)

	var rerr, werr error
	switch {
	case bodiless:
	case r.chunked:
		rerr, werr = lc.relayChunked(uc, &e)
	default:
		rerr, werr = lc.relay(uc, r.length, &e)
	}
	lc.mu.Lock()
	lc.finished = true
	gone := lc.gone
	lc.mu.Unlock()
	e.Finished = p.clock.Now()
	switch {
	case p.ctx.Err() != nil: // the proxy closed: a shutdown, not a client leaving
	case !gone.IsZero() || werr != nil:
		e.ClientGone = cmp.Or(gone, e.Finished)
		rerr = nil
	case rerr != nil:
		e.Error = rerr.Error() // as net/http's path records a body cut short
	}
	lc.record(&e)
	if werr == nil && gone.IsZero() {
		werr = lc.flush()
	}
	if rerr != nil || werr != nil || !gone.IsZero() || r.close || early || uc.br.Buffered() > 0 ||
		(!bodiless && r.length < 0 && !r.chunked) {
		// Bytes past the answer (a body on a HEAD, say) would become the
		// next client's answer: such a connection is never reused.
		uc.c.Close()
	} else {
		lc.s.pool.put(uc)
	}
	return rerr == nil && werr == nil && gone.IsZero() && !closeAfter
}

// idle marks the connection between requests again.
func (lc *leanConn) idle() {
	lc.mu.Lock()
	lc.active, lc.up = false, nil
	lc.mu.Unlock()
}

// readBody reads a request body of n bytes within the body timeout.
func (lc *leanConn) readBody(n int64) ([]byte, int, error) {
	if n <= 0 {
		// The rest of the exchange must not inherit the head's deadline.
		_ = lc.c.SetReadDeadline(time.Time{})
		return nil, 0, nil
	}
	if int64(cap(lc.body)) < n {
		lc.body = make([]byte, n)
	}
	body := lc.body[:n]
	if n > keepBody {
		lc.body = nil
	}
	_ = lc.c.SetReadDeadline(time.Now().Add(lc.p.limits.BodyReadTimeout))
	got, err := io.ReadFull(lc.br, body)
	// The client gets no more time than that: the rest of the exchange must
	// not inherit the body's deadline (peek would read it as a close).
	_ = lc.c.SetReadDeadline(time.Time{})
	return body, got, err
}

// forward sends the request upstream on an idle or new connection. It
// watches the client from the start when that may take a while: a dial, or
// a body large enough to wait on the upstream reading it.
func (lc *leanConn) forward(body []byte) (*upConn, error) {
	uc := lc.s.pool.take()
	if uc == nil || len(body) > keepBody {
		lc.watch()
	}
	if uc == nil {
		var err error
		if uc, err = lc.s.pool.dial(lc.p.ctx); err != nil {
			return nil, err
		}
	}
	lc.mu.Lock()
	gone, killed := !lc.gone.IsZero(), lc.killed
	if !gone && !killed {
		lc.up = uc
	}
	lc.mu.Unlock()
	switch {
	case killed:
		uc.c.Close()
		return nil, ErrClosed
	case gone:
		return uc, errClientLeft
	}
	_, _ = uc.bw.Write(lc.out)
	_, _ = uc.bw.Write(body)
	return uc, uc.bw.Flush()
}

var errClientLeft = errors.New("faults: client went away")

// watchDelay is how long an exchange waits for the upstream's answer before
// it watches the client for leaving. Most answers come sooner, and a watcher
// per request would cost more CPU than the rest of the exchange; a client
// that leaves is seen at most this late, or when its answer arrives.
const watchDelay = 5 * time.Millisecond

// watchAfter is the proxy's watchDelay; tests that must not depend on the
// upstream answering within it lengthen it.
func (p *Proxy) watchAfter() time.Duration { return cmp.Or(p.watchDelay, watchDelay) }

// await waits until the upstream has bytes to read, watching the client
// once watchDelay has passed. Every read from the upstream goes through it,
// so a client that leaves mid-stream is seen too.
func (lc *leanConn) await(uc *upConn) error {
	if lc.watchDone != nil || uc.br.Buffered() > 0 {
		return nil
	}
	_ = uc.c.SetReadDeadline(time.Now().Add(lc.p.watchAfter()))
	_, err := uc.br.Peek(1)
	_ = uc.c.SetReadDeadline(time.Time{})
	if isTimeout(err) {
		lc.watch()
		return nil
	}
	return err
}

// readResponseHead reads the upstream's final response head into lc.resp,
// skipping interim 1xx answers as net/http's client does.
func (lc *leanConn) readResponseHead(uc *upConn) error {
	for interim := 0; ; interim++ {
		if interim > maxInterim {
			return fmt.Errorf("more than %d interim (1xx) answers", maxInterim)
		}
		if err := lc.await(uc); err != nil {
			if err == io.EOF {
				return errors.New("connection closed before a response")
			}
			return err
		}
		lc.scratch = lc.scratch[:0]
		for lines, partial := 0, false; ; {
			line, err := uc.br.ReadSlice('\n')
			lc.scratch = append(lc.scratch, line...)
			if len(lc.scratch) > maxResponseHead {
				return fmt.Errorf("response head over %d bytes", maxResponseHead)
			}
			if err == bufio.ErrBufferFull {
				partial = true
				continue
			}
			if err != nil {
				if err == io.EOF && len(lc.scratch) == 0 {
					return errors.New("connection closed before a response")
				}
				return err
			}
			empty := !partial && (string(line) == "\n" || string(line) == "\r\n")
			if empty && lines > 0 {
				break
			}
			lines, partial = lines+1, false
		}
		if why := parseResponseHead(lc.scratch, &lc.resp); why != "" {
			return fmt.Errorf("malformed HTTP response: %s", why)
		}
		switch s := lc.resp.status; {
		case s == http.StatusSwitchingProtocols:
			return errors.New("unexpected 101 Switching Protocols: the proxy never asks to upgrade")
		case s < 200:
			continue
		}
		return nil
	}
}

// writeResponseHead writes the status line and fields for the client,
// without hop-by-hop fields and with the framing the lean path sends.
func (lc *leanConn) writeResponseHead(e *Entry, bodiless, closeAfter bool) {
	p, r, w := lc.p, &lc.resp, lc.bw
	now := p.clock.Now()
	lc.stall()
	_, _ = w.WriteString("HTTP/1.1 ")
	_, _ = w.Write(r.statusLine)
	_, _ = w.WriteString("\r\n")
	date := false
	for _, f := range r.fields {
		// Framing is the lean path's to write, whatever Connection names.
		if equalFold(f.name, "Content-Length") || isHop(f.name, r.connTokens) {
			continue
		}
		date = date || equalFold(f.name, "Date")
		_, _ = w.Write(f.name)
		_, _ = w.WriteString(": ")
		_, _ = w.Write(f.value)
		_, _ = w.WriteString("\r\n")
	}
	if !date {
		_, _ = w.WriteString("Date: " + now.UTC().Format(http.TimeFormat) + "\r\n")
	}
	switch {
	case r.chunked && !bodiless:
		_, _ = w.WriteString("Transfer-Encoding: chunked\r\n")
	case r.length >= 0:
		_, _ = w.WriteString("Content-Length: " + strconv.FormatInt(r.length, 10) + "\r\n")
	}
	if closeAfter {
		_, _ = w.WriteString("Connection: close\r\n")
	}
	_, _ = w.WriteString("\r\n")
	e.Status = r.status
	e.ResponseHeaders = p.respHeaders.pickFields(r.fields, r.connTokens, true)
}

// relay copies n body bytes (n < 0: until the upstream closes) to the
// client. rerr is an upstream failure, werr a client one.
func (lc *leanConn) relay(uc *upConn, n int64, e *Entry) (rerr, werr error) {
	src := uc.br
	for n != 0 {
		if src.Buffered() == 0 {
			if n < 0 { // a stream until close: what came so far goes out now
				if werr = lc.flush(); werr != nil {
					return nil, werr
				}
			}
			if err := lc.await(uc); err != nil && err != io.EOF {
				return err, nil
			}
			if _, err := src.Peek(1); err != nil {
				if n < 0 && err == io.EOF {
					return nil, nil
				}
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return err, nil
			}
		}
		k := src.Buffered()
		if n > 0 {
			k = int(min(int64(k), n))
			n -= int64(k)
		}
		b, _ := src.Peek(k)
		if werr = lc.write(b, e); werr != nil {
			return nil, werr
		}
		_, _ = src.Discard(k)
	}
	return nil, nil
}

// relayChunked relays a chunked body chunk by chunk, flushing whenever the
// upstream has nothing more at hand, so streamed responses stay streamed.
// Trailers are dropped: an HTTP/1.1 upstream's trailers carry nothing a
// check reads (gRPC's travel over HTTP/2, on the net/http path, which
// relays them).
func (lc *leanConn) relayChunked(uc *upConn, e *Entry) (rerr, werr error) {
	for {
		line, err := lc.chunkLine(uc)
		if err != nil {
			return err, nil
		}
		size, err := parseChunkSize(line)
		if err != nil {
			return err, nil
		}
		if size == 0 {
			for {
				line, err := lc.chunkLine(uc)
				if err != nil {
					return err, nil
				}
				if len(line) == 0 {
					break
				}
			}
			_, werr = lc.bw.WriteString("0\r\n\r\n")
			return nil, werr
		}
		_, _ = lc.bw.WriteString(strconv.FormatInt(size, 16) + "\r\n")
		if rerr, werr = lc.relay(uc, size, e); rerr != nil || werr != nil {
			return rerr, werr
		}
		if line, err := lc.chunkLine(uc); err != nil || len(line) != 0 {
			return cmp.Or(err, errors.New("malformed chunked encoding")), nil
		}
		if _, werr = lc.bw.WriteString("\r\n"); werr != nil {
			return nil, werr
		}
		if uc.br.Buffered() == 0 {
			if werr = lc.flush(); werr != nil {
				return nil, werr
			}
		}
	}
}

// chunkLine reads a chunk-size, trailer or end line of a chunked body.
func (lc *leanConn) chunkLine(uc *upConn) ([]byte, error) {
	if err := lc.await(uc); err != nil && err != io.EOF {
		return nil, err
	}
	return readChunkLine(uc.br)
}

func readChunkLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	switch {
	case err == io.EOF:
		return nil, io.ErrUnexpectedEOF
	case err == bufio.ErrBufferFull:
		return nil, errors.New("chunk line too long")
	case err != nil:
		return nil, err
	}
	line = line[:len(line)-1]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	return line, nil
}

// parseChunkSize reads chunk-size [ BWS ";" chunk-ext ] (RFC 9112 §7.1):
// hex digits only, extensions ignored.
func parseChunkSize(line []byte) (int64, error) {
	i := 0
	for i < len(line) && isHex(line[i]) {
		i++
	}
	rest := trimOWS(line[i:])
	if i == 0 || i > 15 || (len(rest) > 0 && rest[0] != ';') {
		return 0, errors.New("malformed chunk size")
	}
	n, err := strconv.ParseInt(string(line[:i]), 16, 64)
	if err != nil {
		return 0, errors.New("malformed chunk size")
	}
	return n, nil
}

// write sends body bytes to the client, counting them and extending the
// stall deadline when the buffer goes out.
func (lc *leanConn) write(b []byte, e *Entry) error {
	if len(b) > lc.bw.Available() {
		lc.stall()
	}
	n, err := lc.bw.Write(b)
	e.BytesOut += int64(n)
	return err
}

// flush sends what is buffered for the client.
func (lc *leanConn) flush() error {
	lc.stall()
	return lc.bw.Flush()
}

// stall lets the client take WriteStallTimeout for the next bytes.
func (lc *leanConn) stall() {
	_ = lc.c.SetWriteDeadline(time.Now().Add(lc.p.limits.WriteStallTimeout))
}

// fail ends an exchange that got no upstream response head.
func (lc *leanConn) fail(e *Entry, err error, clientClose bool) bool {
	p := lc.p
	lc.mu.Lock()
	lc.finished = true
	gone := lc.gone
	lc.mu.Unlock()
	e.UpstreamStatuses = []int{0}
	switch {
	case p.ctx.Err() != nil:
		e.Finished = p.clock.Now()
		lc.record(e)
		return false
	case !gone.IsZero():
		e.ClientGone, e.Finished = gone, p.clock.Now()
		lc.record(e)
		return false
	}
	ue := &UpstreamError{URL: p.upstream.Redacted(), Err: err}
	e.Error = ue.Error()
	return lc.respond(e, ue.Status(), ue.Error()+"\n", clientClose)
}

// reject answers a request the proxy refuses and closes the connection.
func (lc *leanConn) reject(e *Entry, status int, msg string) {
	e.Outcome, e.Error = OutcomeRejected, msg
	lc.respond(e, status, msg+"\n", true)
}

// respond answers the client with a plain-text message from the proxy.
func (lc *leanConn) respond(e *Entry, status int, msg string, closeAfter bool) bool {
	p, w := lc.p, lc.bw
	now := p.clock.Now()
	lc.stall()
	_, _ = w.WriteString("HTTP/1.1 " + strconv.Itoa(status) + " " + http.StatusText(status) + "\r\n" +
		"Content-Type: text/plain; charset=utf-8\r\nContent-Length: " + strconv.Itoa(len(msg)) + "\r\n" +
		"Date: " + now.UTC().Format(http.TimeFormat) + "\r\n")
	if closeAfter {
		_, _ = w.WriteString("Connection: close\r\n")
	}
	_, _ = w.WriteString("\r\n")
	_, _ = w.WriteString(msg)
	e.Status, e.BytesOut = status, int64(len(msg))
	e.Finished = now
	lc.record(e)
	return lc.flush() == nil && !closeAfter
}

// record journals a finished exchange.
func (lc *leanConn) record(e *Entry) {
	p := lc.p
	if e.Finished.IsZero() {
		e.Finished = p.clock.Now()
	}
	if e.Outcome == "" {
		switch {
		case p.ctx.Err() != nil:
			e.Outcome = OutcomeShutdown
		case !e.ClientGone.IsZero():
			e.Outcome = OutcomeClientGone
		case e.Error != "":
			e.Outcome = OutcomeUpstreamError
		default:
			e.Outcome = OutcomePassed
		}
	}
	p.metrics.exchange(e)
	p.record(*e)
}

// watch reads from the client while the exchange is under way: a read that
// fails means the client went away, which is journaled and cuts the
// upstream call, as net/http's server cancels a request's context.
func (lc *leanConn) watch() {
	_ = lc.c.SetReadDeadline(time.Time{})
	done := make(chan struct{})
	lc.watchDone = done
	go func() {
		defer close(done)
		n, err := lc.c.Read(lc.cr.b[:])
		if n > 0 {
			lc.cr.has = true // the next pipelined request has begun
			return
		}
		if err == nil || isTimeout(err) {
			return
		}
		lc.mu.Lock()
		if !lc.finished && !lc.killed && lc.gone.IsZero() && lc.p.ctx.Err() == nil {
			lc.gone = lc.p.clock.Now()
			if lc.up != nil {
				lc.up.c.Close()
			}
		}
		lc.mu.Unlock()
	}()
}

// unwatch stops the watcher, if one runs, and waits for it.
func (lc *leanConn) unwatch() {
	if lc.watchDone == nil {
		return
	}
	_ = lc.c.SetReadDeadline(aLongTimeAgo)
	<-lc.watchDone
	lc.watchDone = nil
}

func isTimeout(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }
