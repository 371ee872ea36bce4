package faults

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ServeHTTP handles one client request: it reads the body, picks the first
// matching rule and lets its fault (or plain forwarding) answer, then
// journals the exchange. Faults that lose a response need a connection the
// server lets them hijack; elsewhere they abort the response instead.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ex := p.begin(w, r)
	defer func() { ex.end(recover()) }()
	if p.admit(ex) && ex.readBody() {
		s, n := p.rules.match(r)
		var err error
		if s == nil {
			err = ex.Pass()
		} else {
			ex.rule, ex.n = s, n
			ex.entry.Rule, ex.entry.Fault = s.Name, TypeOf(s.Fault)
			p.metrics.injected(s.Name, ex.entry.Fault)
			err = s.Fault.Inject(ex)
		}
		ex.settle(err)
	}
}

// newEntry starts the journal entry of an exchange received now.
func (p *Proxy) newEntry(conn uint64, method, path, query string) Entry {
	return Entry{
		ID:       p.idPrefix + p.side + "-" + strconv.FormatUint(p.exSeq.Add(1), 10),
		Side:     p.side,
		Seed:     p.seed,
		Conn:     conn,
		Received: p.clock.Now(),
		Method:   method,
		Path:     path,
		Query:    query,
	}
}

func (p *Proxy) begin(w http.ResponseWriter, r *http.Request) *Exchange {
	ex := &Exchange{p: p, w: w, r: r, ctx: r.Context()}
	conn, _ := r.Context().Value(connKey{}).(uint64)
	ex.entry = p.newEntry(conn, r.Method, r.URL.Path, r.URL.RawQuery)
	ex.entry.Proto = r.Proto
	ex.entry.Headers = p.reqHeaders.pick(r.Header)
	ex.stopGone = context.AfterFunc(ex.ctx, ex.clientLeft)
	p.metrics.inflight.Inc()
	return ex
}

// clientLeft runs when the request context ends: the client went away,
// unless the exchange already finished or the proxy is closing.
func (ex *Exchange) clientLeft() {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if !ex.finished && ex.p.ctx.Err() == nil && ex.entry.ClientGone.IsZero() {
		ex.entry.ClientGone = ex.p.clock.Now()
	}
}

// admit refuses requests the proxy must not serve: it is never an open proxy.
func (p *Proxy) admit(ex *Exchange) bool {
	r := ex.r
	switch {
	case r.Method == http.MethodConnect:
		ex.reject(http.StatusMethodNotAllowed, "faults: CONNECT refused: not an open proxy")
		return false
	case r.URL.Host != "" && p.upstream != nil && !sameHost(r.URL, p.upstream.Scheme, p.upstream.Host):
		ex.reject(http.StatusForbidden, fmt.Sprintf("faults: refused request for %s: this proxy only serves %s", r.URL.Host, p.upstream.Host))
		return false
	}
	return true
}

func sameHost(u interface {
	Port() string
	Hostname() string
}, scheme, host string) bool {
	h, port, err := net.SplitHostPort(host)
	if err != nil {
		h, port = host, map[string]string{"http": "80", "https": "443"}[scheme]
	}
	up := u.Port()
	if up == "" {
		up = "80"
	}
	return strings.EqualFold(u.Hostname(), h) && up == port
}

// readBody buffers the request body within the size and time limits.
func (ex *Exchange) readBody() bool {
	r, lim := ex.r, ex.p.limits
	if r.ContentLength > lim.MaxBodyBytes {
		ex.reject(http.StatusRequestEntityTooLarge, fmt.Sprintf("faults: request body of %d bytes exceeds the limit of %d", r.ContentLength, lim.MaxBodyBytes))
		return false
	}
	if r.Body == nil || r.Body == http.NoBody {
		return true
	}
	rc := ex.controller()
	_ = rc.SetReadDeadline(ex.p.clock.Now().Add(lim.BodyReadTimeout))
	body, err := io.ReadAll(io.LimitReader(r.Body, lim.MaxBodyBytes+1))
	_ = rc.SetReadDeadline(time.Time{})
	ex.entry.BytesIn = int64(len(body))
	var ne net.Error
	switch {
	case err != nil && errors.As(err, &ne) && ne.Timeout():
		ex.reject(http.StatusRequestTimeout, fmt.Sprintf("faults: request body not received within %s", lim.BodyReadTimeout))
		return false
	case err != nil && clientLeft(err):
		ex.noteError(fmt.Errorf("faults: read request body: %w", err))
		return false
	case err != nil:
		// Only chunked framing can be malformed here: net/http checked
		// Content-Length before the handler ran.
		ex.reject(http.StatusBadRequest, fmt.Sprintf("faults: malformed chunked request body: %v", err))
		return false
	case int64(len(body)) > lim.MaxBodyBytes:
		ex.reject(http.StatusRequestEntityTooLarge, fmt.Sprintf("faults: request body exceeds the limit of %d bytes", lim.MaxBodyBytes))
		return false
	}
	if len(body) > 0 {
		sum := sha256.Sum256(body)
		ex.entry.BodySHA256 = hex.EncodeToString(sum[:16])
		ex.body = body
	}
	return true
}

// clientLeft reports whether a request body read failed because the client
// stopped sending (closed, reset) rather than because it sent bad framing.
func clientLeft(err error) bool {
	var ne net.Error
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) ||
		errors.As(err, &ne)
}

// reject answers with a proxy error and closes the connection, since the
// request may not have been read in full.
func (ex *Exchange) reject(status int, msg string) {
	ex.entry.Outcome = OutcomeRejected
	ex.noteError(errors.New(msg))
	ex.w.Header().Set("Connection", "close")
	ex.w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_ = ex.Respond(status, nil, []byte(msg+"\n"))
}

// settle answers the client if the fault returned an error before doing so.
func (ex *Exchange) settle(err error) {
	if ex.started || ex.lose != "" || ex.ctx.Err() != nil {
		return
	}
	if err == nil {
		err = fmt.Errorf("fault returned without answering")
	}
	var ue *UpstreamError
	var cw errClientWrite
	switch {
	case errors.As(err, &cw):
		ex.noteGone()
		return
	case errors.As(err, &ue):
		ex.entry.Outcome = OutcomeUpstreamError
		ex.w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_ = ex.Respond(ue.Status(), nil, []byte(ue.Error()+"\n"))
	default:
		ex.noteError(err)
		ex.w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_ = ex.Respond(http.StatusInternalServerError, nil, []byte(fmt.Sprintf("faults: %s failed: %v\n", ex.entry.Fault, err)))
	}
}
