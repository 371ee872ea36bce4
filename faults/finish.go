package faults

import (
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
)

// end carries out a pending Lose, journals the exchange and updates the
// metrics. rec is the handler's recovered panic, if any.
func (ex *Exchange) end(rec any) {
	p := ex.p
	ex.stopGone()
	abort := false
	switch {
	case rec == nil:
	case rec == http.ErrAbortHandler:
		abort = true
	default:
		ex.noteError(fmt.Errorf("faults: panic in fault %q: %v", ex.entry.Fault, rec))
		if !ex.started {
			_ = ex.Respond(http.StatusInternalServerError, nil, []byte("faults: internal error\n"))
		} else {
			abort = true
		}
	}
	if !ex.started && ex.lose == "" && ex.ctx.Err() != nil {
		// The client left or the proxy is closing: make sure net/http does
		// not send the implicit empty 200 of a handler that wrote nothing.
		abort = true
	}
	// Record before losing the connection, so a client that sees the loss
	// finds the exchange in the journal.
	p.record(ex.finish())
	if ex.lose != "" && !ex.loseConn() {
		abort = true // no connection to hijack (HTTP/2, recorder): abort the stream
	}
	p.metrics.inflight.Dec()
	if abort {
		panic(http.ErrAbortHandler)
	}
}

// finish completes the journal entry; after it, clientLeft records nothing.
func (ex *Exchange) finish() Entry {
	p := ex.p
	now := p.clock.Now()
	ex.mu.Lock()
	ex.finished = true
	if ex.entry.ClientGone.IsZero() && ex.lose == "" && ex.ctx.Err() != nil && p.ctx.Err() == nil {
		ex.entry.ClientGone = now
	}
	e := ex.entry
	// A late copy's note must not reach the journaled entry's list.
	e.UpstreamGRPCStatuses = slices.Clone(e.UpstreamGRPCStatuses)
	ex.mu.Unlock()
	e.Finished = now
	if ex.started {
		e.Status = ex.status
		e.ResponseHeaders = p.respHeaders.pick(withTrailers(ex.w.Header()))
	}
	if e.Outcome == "" {
		e.Outcome = ex.outcome(&e)
	}
	p.metrics.exchange(&e)
	return e
}

func (ex *Exchange) outcome(e *Entry) string {
	switch {
	case ex.ctx.Err() != nil && ex.p.ctx.Err() != nil:
		return OutcomeShutdown
	case !e.ClientGone.IsZero():
		return OutcomeClientGone
	case ex.rule != nil:
		return OutcomeFaulted
	case e.Error != "":
		return OutcomeUpstreamError
	}
	return OutcomePassed
}

func (ex *Exchange) noteGone() {
	ex.mu.Lock()
	if ex.entry.ClientGone.IsZero() {
		ex.entry.ClientGone = ex.p.clock.Now()
	}
	ex.mu.Unlock()
}

// loseConn closes or resets the client connection, after sending whatever
// part of the response was written. It reports false if the connection
// cannot be taken over.
func (ex *Exchange) loseConn() bool {
	rc := ex.controller()
	if ex.started {
		_ = rc.Flush()
	}
	conn, brw, err := rc.Hijack()
	if err != nil {
		return false
	}
	if ex.started {
		_ = brw.Flush()
	}
	conn = rawConn(conn) // over TLS: no close_notify, the connection just dies
	if ex.lose == LoseReset {
		if tc, ok := tcpConn(conn); ok {
			_ = tc.SetLinger(0) // Close now sends RST instead of FIN
		}
	}
	_ = conn.Close()
	return true
}

// withTrailers is h with the trailers set in it (http.TrailerPrefix keys)
// as plain fields too, so a gRPC status relayed in trailers is journaled.
// It returns h itself when there are none.
func withTrailers(h http.Header) http.Header {
	var merged http.Header
	for k, v := range h {
		if name, ok := strings.CutPrefix(k, http.TrailerPrefix); ok {
			if merged == nil {
				merged = h.Clone()
			}
			merged[http.CanonicalHeaderKey(name)] = v
		}
	}
	if merged == nil {
		return h
	}
	return merged
}

func tcpConn(c net.Conn) (*net.TCPConn, bool) {
	switch c := c.(type) {
	case *net.TCPConn:
		return c, true
	case *limitConn:
		return c.tcp()
	case *handedConn:
		return tcpConn(c.Conn)
	}
	return nil, false
}
