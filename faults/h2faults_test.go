package faults

import (
	"context"
	"io"
	"net/http"
	"net/http/httptrace"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestFaults_HTTP2Streams drives each fault over h2c on both sides, one
// stream at a time on one client connection: a fault that loses an answer
// resets its stream (RST_STREAM INTERNAL_ERROR, what net/http's server
// sends when a handler aborts), never the connection the next stream rides,
// and each stream is journaled as an HTTP/2.0 exchange.
func TestFaults_HTTP2Streams(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	body := strings.Repeat("b", 200)
	p := h2cProxy(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("X-Up-Proto", r.Proto)
		w.Write([]byte(body))
	}, WithRules(
		Rule{Name: "delay", Match: Match{Path: "/delay"}, Fault: Delay{Duration: 50 * time.Millisecond}},
		Rule{Name: "abort", Match: Match{Path: "/abort"}, Fault: Abort{Status: 503, Headers: map[string]string{"Retry-After": "2"}}},
		Rule{Name: "drop", Match: Match{Path: "/drop"}, Fault: DropResponse{}},
		Rule{Name: "drop-reset", Match: Match{Path: "/drop-reset"}, Fault: DropResponse{Mode: "reset"}},
		Rule{Name: "drop-status", Match: Match{Path: "/drop-status"}, Fault: DropResponse{Mode: "status"}},
		Rule{Name: "reset", Match: Match{Path: "/reset"}, Fault: Reset{}},
		Rule{Name: "blackhole", Match: Match{Path: "/blackhole"}, Fault: Blackhole{Timeout: 20 * time.Millisecond}},
		Rule{Name: "held", Match: Match{Path: "/held"}, Fault: Blackhole{}},
		Rule{Name: "throttle", Match: Match{Path: "/throttle"}, Fault: Throttle{Rate: 1000, Chunk: 100}},
		Rule{Name: "truncate", Match: Match{Path: "/truncate"}, Fault: Truncate{Bytes: 5}},
	))
	const reset = "INTERNAL_ERROR; received from peer" // how Go's client reports a peer's RST_STREAM
	tests := []struct {
		path     string
		status   int   // 0: the stream is reset
		upstream int64 // calls the upstream sees
		min      time.Duration
		outcome  string
	}{
		{"/delay", 200, 1, 50 * time.Millisecond, OutcomeFaulted},
		{"/abort", 503, 0, 0, OutcomeFaulted},
		{"/drop", 0, 1, 0, OutcomeFaulted},
		{"/drop-reset", 0, 1, 0, OutcomeFaulted},
		{"/drop-status", 504, 1, 0, OutcomeFaulted},
		{"/reset", 0, 0, 0, OutcomeFaulted},
		{"/blackhole", 0, 0, 20 * time.Millisecond, OutcomeFaulted},
		{"/held", -1, 0, 0, OutcomeClientGone},
		{"/throttle", 200, 1, 100 * time.Millisecond, OutcomeFaulted}, // the second 100 bytes wait 0.1s
		{"/truncate", 0, 1, 0, OutcomeFaulted},                        // 200 and 5 bytes, then the reset
		{"/pass", 200, 1, 0, OutcomePassed},
	}
	c := h2cClient()
	var conn string // the client connection's local address: one for every stream
	trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) {
		if a := i.Conn.LocalAddr().String(); conn == "" {
			conn = a
		} else if a != conn {
			t.Errorf("a new connection %s after %s: a stream fault cost the connection", a, conn)
		}
	}}
	for i, tt := range tests {
		before := calls.Load()
		ctx, cancel := context.WithCancel(httptrace.WithClientTrace(t.Context(), trace))
		if tt.status == -1 {
			// The client gives up on a held stream: it resets it (CANCEL).
			ctx, cancel = context.WithTimeout(ctx, 30*time.Millisecond)
		}
		req, _ := http.NewRequestWithContext(ctx, "POST", p.URL()+tt.path, strings.NewReader("x"))
		start := time.Now()
		resp, err := c.Do(req)
		var got string
		if err == nil {
			b := new(strings.Builder)
			_, err = copyTo(b, resp)
			got = b.String()
		}
		elapsed := time.Since(start)
		cancel()
		switch {
		case tt.status == 0 && (err == nil || !strings.Contains(err.Error(), reset)):
			t.Errorf("%s: %v %v, want the stream reset (%s)", tt.path, resp, err, reset)
		case tt.status == -1 && (err == nil || ctx.Err() == nil):
			t.Errorf("%s: %v %v, want the client's own deadline", tt.path, resp, err)
		case tt.status > 0 && (err != nil || resp.StatusCode != tt.status || resp.ProtoMajor != 2):
			t.Errorf("%s: %v %v, want %d over HTTP/2", tt.path, resp, err, tt.status)
		case tt.status == 200 && (got != body || resp.Header.Get("X-Up-Proto") != "HTTP/2.0"):
			t.Errorf("%s: body %d bytes, upstream proto %q; want the upstream's %d bytes over HTTP/2", tt.path, len(got), resp.Header.Get("X-Up-Proto"), len(body))
		case tt.path == "/abort" && resp.Header.Get("Retry-After") != "2":
			t.Errorf("%s: Retry-After %q, want 2", tt.path, resp.Header.Get("Retry-After"))
		}
		if tt.path == "/truncate" && got != body[:5] {
			t.Errorf("%s: body %q before the reset, want the first 5 bytes", tt.path, got)
		}
		if n := calls.Load() - before; n != tt.upstream {
			t.Errorf("%s: the upstream saw %d calls, want %d", tt.path, n, tt.upstream)
		}
		if elapsed < tt.min {
			t.Errorf("%s: answered after %v, want at least %v", tt.path, elapsed, tt.min)
		}
		e := await(t, p, i+1)[i]
		if e.Path != tt.path || e.Proto != "HTTP/2.0" || e.Outcome != tt.outcome || e.UpstreamCalls != int(tt.upstream) {
			t.Errorf("%s: journal %+v, want an HTTP/2.0 exchange %s with %d upstream calls", tt.path, e, tt.outcome, tt.upstream)
		}
	}
}

// TestGoAway_HTTP2: a goaway answer is relayed, then the server sends
// GOAWAY: a stream already in flight on the connection still completes,
// and the next request opens a new connection.
func TestGoAway_HTTP2(t *testing.T) {
	t.Parallel()
	arrived, release := make(chan struct{}), make(chan struct{})
	p := h2cProxy(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			close(arrived)
			<-release
		}
		w.Write([]byte("ok" + r.URL.Path))
	}, WithRules(Rule{Name: "goaway", Match: Match{Path: "/goaway"}, Fault: GoAway{}}))
	c := h2cClient()
	var (
		mu    sync.Mutex
		conns []string
	)
	trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) {
		mu.Lock()
		defer mu.Unlock()
		conns = append(conns, i.Conn.LocalAddr().String())
	}}
	ctx := httptrace.WithClientTrace(t.Context(), trace)
	get := func(path string) (*http.Response, string, error) {
		req, _ := http.NewRequestWithContext(ctx, "GET", p.URL()+path, nil)
		resp, err := c.Do(req)
		if err != nil {
			return nil, "", err
		}
		b := new(strings.Builder)
		_, err = copyTo(b, resp)
		return resp, b.String(), err
	}
	slow := make(chan error, 1)
	go func() {
		_, body, err := get("/slow")
		if err == nil && body != "ok/slow" {
			err = errorString("body " + body)
		}
		slow <- err
	}()
	<-arrived
	if resp, body, err := get("/goaway"); err != nil || resp.StatusCode != 200 || body != "ok/goaway" || resp.Header.Get("Connection") != "" {
		t.Fatalf("goaway: %v %v %q, want the upstream's answer without a Connection header", resp, err, body)
	}
	close(release)
	if err := <-slow; err != nil {
		t.Fatalf("the stream in flight at GOAWAY: %v, want it completed", err)
	}
	if _, body, err := get("/after"); err != nil || body != "ok/after" {
		t.Fatalf("after GOAWAY: %v %q", err, body)
	}
	// net/http may write /goaway's end of stream before the GOAWAY frame,
	// so /after can meet the old connection first and be retried on a new
	// one: the last connection is what must be new.
	mu.Lock()
	got := slices.Clone(conns)
	mu.Unlock()
	if len(got) < 3 || got[0] != got[1] || got[len(got)-1] == got[0] {
		t.Fatalf("connections %q: want /slow and /goaway on one, /after on a new one", got)
	}
	es := await(t, p, 3)
	if es[0].Conn == es[2].Conn || es[2].Path != "/after" {
		t.Errorf("journal conns %d..%d, want /after on a new connection", es[0].Conn, es[2].Conn)
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

// copyTo reads resp's body into b and closes it.
func copyTo(b *strings.Builder, resp *http.Response) (int64, error) {
	defer resp.Body.Close()
	return io.Copy(b, resp.Body)
}

// TestGoAway_HTTP1: over HTTP/1.1 the answer says Connection: close and the
// proxy closes the connection after it.
func TestGoAway_HTTP1(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, nil)
	p := startProxy(t, WithUpstream(up.url(t)), WithRules(Rule{Name: "goaway", Fault: GoAway{}}))
	resp, body, err := do(t, client(), "POST", p.URL()+"/", "x")
	if err != nil || resp.StatusCode != 200 || body != "echo:x" || !resp.Close {
		t.Fatalf("%v %v %q, want the upstream's answer with Connection: close", resp, err, body)
	}
}
