package faults

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// rawExchange sends raw request bytes on a new connection and reads one
// response (nil if the proxy closed without one), then closes.
func rawExchange(t *testing.T, addr, raw, method string) (*http.Response, string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	for err == nil && resp.StatusCode < 200 { // interim answers, e.g. 100 Continue
		resp, err = http.ReadResponse(br, &http.Request{Method: method})
	}
	if err != nil {
		return nil, err.Error()
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp, string(b) + "<" + err.Error() + ">"
	}
	return resp, string(b)
}

func hostOf(p *Proxy) string { return strings.TrimPrefix(p.URL(), "http://") }

// startWarmProxy starts a lean proxy to u and leaves an upstream connection
// to reuse, so the next exchange dials nothing (a dial is watched from the
// start, which would hide what the test looks for).
func startWarmProxy(t *testing.T, u *url.URL, opts ...Option) *Proxy {
	t.Helper()
	p := startProxy(t, append([]Option{WithUpstream(u)}, opts...)...)
	if resp, _ := rawExchange(t, hostOf(p), "GET /warm HTTP/1.1\r\nHost: h\r\n\r\n", "GET"); resp == nil {
		t.Fatal("no answer to the warm-up request")
	}
	// The connection returns to the pool just after the answer went out.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		p.lean.pool.mu.Lock()
		n := len(p.lean.pool.idle)
		p.lean.pool.mu.Unlock()
		if n > 0 {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatal("the warm-up left no upstream connection to reuse")
		}
	}
}

// sendRaw writes raw on a new connection to p and returns the connection.
func sendRaw(t *testing.T, p *Proxy, raw string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", hostOf(p))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	return c
}

// seenRequest is what the upstream observed, minus what only net/http's
// client adds (User-Agent).
type seenRequest struct {
	Method, URI, Host string
	Header            http.Header
	Body              string
}

// differentialUpstream answers by path, recording what it saw per proxy
// (told apart by the X-Via header each test request carries).
func differentialUpstream(t *testing.T, seen *sync.Map) *url.URL {
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h := r.Header.Clone()
		h.Del("User-Agent")
		seen.Store(r.Header.Get("X-Via")+" "+r.URL.Path, seenRequest{r.Method, r.RequestURI, r.Host, h, string(b)})
		switch r.URL.Path {
		case "/chunked":
			w.Header().Set("RateLimit", `"default";r=9;t=1`)
			w.Write([]byte("part one,"))
			http.NewResponseController(w).Flush()
			w.Write([]byte("part two:" + string(b)))
		case "/head":
			w.Header().Set("Content-Length", "100")
		case "/nocontent":
			w.WriteHeader(http.StatusNoContent)
		case "/notmodified":
			w.Header().Set("ETag", `"v1"`)
			w.WriteHeader(http.StatusNotModified)
		case "/hints":
			w.Header().Set("Link", "</a.css>; rel=preload")
			w.WriteHeader(http.StatusEarlyHints)
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte("busy"))
		case "/hopresp":
			w.Header().Set("Connection", "X-Private")
			w.Header().Set("X-Private", "p")
			w.Header().Set("Keep-Alive", "timeout=5")
			w.Write([]byte("ok"))
		case "/connframing": // names framing fields as hop-by-hop
			w.Header().Set("Connection", "Content-Length, Date")
			w.Header().Set("Content-Length", "5")
			w.Write([]byte("hello"))
		case "/closedelimited":
			conn, brw, _ := http.NewResponseController(w).Hijack()
			brw.WriteString("HTTP/1.1 200 OK\r\nX-Framing: none\r\n\r\nuntil close")
			brw.Flush()
			conn.Close()
		default:
			w.Header().Set("X-RateLimit-Remaining", "9")
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("echo:" + string(b)))
		}
	})
	return up.url(t)
}

// TestLean_MatchesNetHTTP sends the same bytes through a lean proxy and one
// serving everything through net/http, and requires the same answer, the
// same request upstream and the same journal entry.
func TestLean_MatchesNetHTTP(t *testing.T) {
	t.Parallel()
	var seen sync.Map
	u := differentialUpstream(t, &seen)
	lean := startProxy(t, WithUpstream(u))
	plain := startProxy(t, WithUpstream(u), func(p *Proxy) { p.noLean = true })
	if lean.lean == nil || plain.lean != nil {
		t.Fatal("proxies not on the paths the test compares")
	}
	cases := []struct {
		name, method, raw string
		handed            bool // the lean path must give it to net/http
		refused           bool // net/http refuses it before any handler: no entry
	}{
		{"get", "GET", "GET /a?x=1 HTTP/1.1\r\nHost: h\r\nIdempotency-Key: k1\r\nX-Tenant-Id: t\r\nX-Attempt: 1\r\nX-Attempt: 2\r\n\r\n", false, false},
		{"post", "POST", "POST /v1/a%20b HTTP/1.1\r\nHost: h\r\nContent-Length: 7\r\nContent-Type: application/json\r\n\r\npayload", false, false},
		{"post empty", "POST", "POST /e HTTP/1.1\r\nHost: h\r\n\r\n", false, false},
		{"escaped slash", "GET", "GET /a%2Fb/c HTTP/1.1\r\nHost: h\r\n\r\n", false, false},
		{"chunked answer", "PUT", "PUT /chunked?q=2 HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc", false, false},
		{"head", "HEAD", "HEAD /head HTTP/1.1\r\nHost: h\r\n\r\n", false, false},
		{"no content", "DELETE", "DELETE /nocontent HTTP/1.1\r\nHost: h\r\n\r\n", false, false},
		{"not modified", "GET", "GET /notmodified HTTP/1.1\r\nHost: h\r\nIf-None-Match: \"v1\"\r\n\r\n", false, false},
		{"early hints", "GET", "GET /hints HTTP/1.1\r\nHost: h\r\n\r\n", false, false},
		{"hop fields", "GET", "GET /hop HTTP/1.1\r\nHost: h\r\nConnection: X-Drop, keep-alive\r\nX-Drop: secret\r\nKeep-Alive: timeout=5\r\nTE: trailers\r\nProxy-Authorization: Basic x\r\n\r\n", false, false},
		{"hop fields in answer", "GET", "GET /hopresp HTTP/1.1\r\nHost: h\r\n\r\n", false, false},
		{"answer's Connection names its framing", "GET", "GET /connframing HTTP/1.1\r\nHost: h\r\n\r\n", false, false},
		{"escape not valid", "GET", "GET /a%zz HTTP/1.1\r\nHost: h\r\n\r\n", true, true},
		{"close delimited answer", "GET", "GET /closedelimited HTTP/1.1\r\nHost: h\r\n\r\n", false, false},
		{"client closes", "GET", "GET /bye HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", false, false},
		{"chunked request", "POST", "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", true, false},
		{"expect continue", "POST", "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\nhi", true, false},
		{"http/1.0", "GET", "GET /old HTTP/1.0\r\nHost: h\r\n\r\n", true, false},
		{"bare LF", "GET", "GET /lf HTTP/1.1\nHost: h\n\n", true, false},
		{"big head", "GET", "GET /big HTTP/1.1\r\nHost: h\r\nX-Big: " + strings.Repeat("b", 10<<10) + "\r\n\r\n", true, false},
		{"TE and CL", "POST", "POST /smuggle HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", true, false},
		{"two lengths", "POST", "POST /two HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", true, true},
		{"no host", "GET", "GET /nohost HTTP/1.1\r\n\r\n", true, true},
		{"obs-fold", "GET", "GET /fold HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n  2\r\n\r\n", true, false},
		{"not http", "GET", "\x16\x03\x01\x00\x05hello\r\n\r\n", true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			handed := lean.lean.handed.Load()
			type outcome struct {
				status int
				header http.Header
				body   string
				entry  Entry
				seen   any
			}
			get := func(p *Proxy, via string) outcome {
				raw := strings.Replace(tc.raw, "Host: h\r\n", "Host: h\r\nX-Via: "+via+"\r\n", 1)
				raw = strings.Replace(raw, "Host: h\n", "Host: h\nX-Via: "+via+"\n", 1)
				before := p.Journal().LastSeq()
				resp, body := rawExchange(t, hostOf(p), raw, tc.method)
				var o outcome
				if resp != nil {
					o.status, o.header, o.body = resp.StatusCode, resp.Header.Clone(), body
					for _, k := range []string{"Date", "Content-Length", "Transfer-Encoding", "Connection"} {
						o.header.Del(k)
					}
				}
				if tc.refused {
					if p.Journal().LastSeq() != before {
						t.Errorf("a request net/http refused was journaled")
					}
				} else {
					ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
					defer cancel()
					es, err := p.Journal().Next(ctx, before)
					if err != nil {
						t.Fatal("no journal entry")
					}
					o.entry = normalize(es[0])
				}
				path := strings.Fields(tc.raw + " / ")[1]
				if i := strings.IndexByte(path, '?'); i >= 0 {
					path = path[:i]
				}
				if pu, err := url.PathUnescape(path); err == nil {
					path = pu
				}
				o.seen, _ = seen.Load(via + " " + path)
				if s, ok := o.seen.(seenRequest); ok {
					s.Header.Del("X-Via")
					o.seen = s
				}
				return o
			}
			got, want := get(lean, "lean"), get(plain, "plain")
			if !reflect.DeepEqual(got, want) {
				t.Errorf("lean path:\n%+v\nnet/http path:\n%+v", got, want)
			}
			if h := lean.lean.handed.Load() > handed; h != tc.handed {
				t.Errorf("handed to net/http = %v; want %v", h, tc.handed)
			}
		})
	}
}

// normalize drops what differs between two proxies for the same exchange.
func normalize(e Entry) Entry {
	var z time.Time
	e.Seq, e.ID, e.Conn, e.Start, e.Seed = 0, "", 0, z, 0
	for _, t := range []*time.Time{&e.Received, &e.Forwarded, &e.Sent, &e.Answered, &e.Finished, &e.ClientGone} {
		if !t.IsZero() {
			*t = time.Unix(1, 0)
		}
	}
	if u := strings.Index(e.Error, "upstream http://"); u >= 0 {
		e.Error = e.Error[:u]
	}
	return e
}

func TestLean_RuleMatchHandsOverOnce(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, nil)
	p := startProxy(t, WithUpstream(up.url(t)),
		WithRules(Rule{Name: "first", Match: Match{Path: "/x", First: 1}, Fault: Abort{Status: 503}}))
	c, err := net.Dial("tcp", hostOf(p))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	var statuses []int
	for range 3 {
		io.WriteString(c, "GET /x HTTP/1.1\r\nHost: h\r\n\r\n")
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		statuses = append(statuses, resp.StatusCode)
	}
	if !reflect.DeepEqual(statuses, []int{503, 200, 200}) {
		t.Fatalf("statuses %v; want the first faulted, the rest passed", statuses)
	}
	st := p.Rules().Stats()[0]
	if st.Matched != 3 || st.Injected != 1 || p.lean.handed.Load() != 1 {
		t.Fatalf("rule counted %+v, handed %d; want 3 matched, 1 injected, 1 hand-over", st, p.lean.handed.Load())
	}
}

func TestLean_Pipelining(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, nil)
	p := startProxy(t, WithUpstream(up.url(t)))
	c, err := net.Dial("tcp", hostOf(p))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "POST /1 HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\naGET /2 HTTP/1.1\r\nHost: h\r\n\r\nPOST /3 HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\nc")
	br := bufio.NewReader(c)
	for i, want := range []string{"echo:a", "echo:", "echo:c"} {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		if string(b) != want || resp.Header.Get("X-Upstream-Path") != fmt.Sprint("/", i+1) {
			t.Fatalf("response %d: %q from %s", i+1, b, resp.Header.Get("X-Upstream-Path"))
		}
	}
	es := await(t, p, 3)
	if es[0].Conn != es[2].Conn || p.lean.handed.Load() != 0 {
		t.Fatalf("entries %+v; handed %d", es, p.lean.handed.Load())
	}
}

func TestLean_ClientGoneWhileWaiting(t *testing.T) {
	t.Parallel()
	cancelled := make(chan time.Time, 1)
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
			cancelled <- time.Now()
		case <-time.After(10 * time.Second):
		}
	})
	p := startProxy(t, WithUpstream(up.url(t)))
	c, err := net.Dial("tcp", hostOf(p))
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, "GET /slow HTTP/1.1\r\nHost: h\r\n\r\n")
	time.Sleep(100 * time.Millisecond)
	left := time.Now()
	c.Close()
	e := await(t, p, 1)[0]
	// The watcher starts watchDelay after forwarding; allow scheduling slack.
	if e.Outcome != OutcomeClientGone || e.Status != 0 || e.ClientGone.Before(left) ||
		e.ClientGone.Sub(left) > watchDelay+500*time.Millisecond {
		t.Fatalf("entry %+v; client left at %v", e, left)
	}
	select {
	case at := <-cancelled:
		if at.Sub(left) > time.Second {
			t.Fatalf("upstream saw the cancellation %v after the client left", at.Sub(left))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream call was not cut when the client left")
	}
	if p.InFlight() != 0 {
		t.Fatalf("in flight %d after the journal entry", p.InFlight())
	}
}

// TestLean_ClientGoneBeforeAFastAnswer: a client that left before an answer
// that came before any watcher started is seen when the answer arrives.
func TestLean_ClientGoneBeforeAFastAnswer(t *testing.T) {
	t.Parallel()
	left := make(chan struct{})
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fast" {
			<-left
		}
		w.Write([]byte("late"))
	})
	// No watcher starts however long the answer takes: only the check at
	// its arrival can see the client gone, whatever the machine's load.
	p := startWarmProxy(t, up.url(t), func(p *Proxy) { p.watchDelay = time.Hour })
	c := sendRaw(t, p, "GET /fast HTTP/1.1\r\nHost: h\r\n\r\n")
	for deadline := time.Now().Add(30 * time.Second); up.calls.Load() < 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the request never reached the upstream")
		}
	}
	c.Close()
	close(left)
	e := await(t, p, 2)[1]
	if e.Outcome != OutcomeClientGone || e.Status != 0 || e.BytesOut != 0 || e.UpstreamStatuses[0] != 200 {
		t.Fatalf("entry %+v", e)
	}
}

// TestLean_StaleUpstreamConnection: an upstream that closes each connection
// after answering, without saying so, must not cost a request: the pool
// sees the close before reusing the connection.
func TestLean_StaleUpstreamConnection(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var conns, requests atomic.Int64
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer c.Close()
				if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
					return
				}
				requests.Add(1)
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
			}()
		}
	}()
	p := startProxy(t, WithUpstream(&url.URL{Scheme: "http", Host: l.Addr().String()}))
	cl := client()
	for i := range 3 {
		resp, body, err := do(t, cl, "POST", p.URL()+"/", "x", "Idempotency-Key", fmt.Sprint("k", i))
		if err != nil || resp.StatusCode != 200 || body != "ok" {
			t.Fatalf("request %d: %v %v %q", i, resp, err, body)
		}
		time.Sleep(20 * time.Millisecond) // let the upstream's close arrive
	}
	if requests.Load() != 3 || conns.Load() != 3 {
		t.Fatalf("upstream saw %d requests on %d connections; want 3 on 3", requests.Load(), conns.Load())
	}
}

func TestLean_UpstreamCutsTheBody(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		conn, brw, _ := http.NewResponseController(w).Hijack()
		brw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789")
		brw.Flush()
		conn.Close()
	})
	p := startProxy(t, WithUpstream(up.url(t)))
	resp, body := rawExchange(t, hostOf(p), "GET / HTTP/1.1\r\nHost: h\r\n\r\n", "GET")
	if resp == nil || resp.StatusCode != 200 || !strings.HasPrefix(body, "0123456789<") {
		t.Fatalf("client got %v %q; want a body cut short", resp, body)
	}
	e := await(t, p, 1)[0]
	if e.Outcome != OutcomeUpstreamError || e.BytesOut != 10 || !strings.Contains(e.Error, "unexpected EOF") {
		t.Fatalf("entry %+v", e)
	}
}

func TestLean_ShutdownWaitsForExchanges(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(200 * time.Millisecond)
		w.Write([]byte("done"))
	})
	p := startProxy(t, WithUpstream(up.url(t))) // closing twice is harmless
	idle, err := net.Dial("tcp", hostOf(p))
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	got := make(chan string, 1)
	go func() {
		resp, body := rawExchange(t, hostOf(p), "GET / HTTP/1.1\r\nHost: h\r\n\r\n", "GET")
		if resp == nil {
			got <- body
			return
		}
		got <- fmt.Sprint(resp.StatusCode, " ", body)
	}()
	for p.InFlight() == 0 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if err := p.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if g := <-got; g != "200 done" {
		t.Fatalf("in-flight request got %q", g)
	}
	idle.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := idle.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("idle connection: %v; want it closed", err)
	}
}

// rawUpstream serves each connection with serve until it returns.
func rawUpstream(t *testing.T, serve func(c net.Conn, br *bufio.Reader)) *url.URL {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c, bufio.NewReader(c))
			}()
		}
	}()
	return &url.URL{Scheme: "http", Host: l.Addr().String()}
}

// TestLean_LeftoverBytesAreNobodysAnswer: an upstream that sends a body on
// a HEAD leaves bytes behind; the connection must not be reused, or they
// would become the next client's answer.
func TestLean_LeftoverBytesAreNobodysAnswer(t *testing.T) {
	t.Parallel()
	evil := "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nEVIL!"
	u := rawUpstream(t, func(c net.Conn, br *bufio.Reader) {
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			if req.Method == http.MethodHead {
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(evil), evil)
				continue
			}
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nreal")
		}
	})
	p := startProxy(t, WithUpstream(u))
	if resp, _ := rawExchange(t, hostOf(p), "HEAD / HTTP/1.1\r\nHost: h\r\n\r\n", "HEAD"); resp == nil || resp.StatusCode != 200 {
		t.Fatal("HEAD failed")
	}
	if _, body := rawExchange(t, hostOf(p), "GET / HTTP/1.1\r\nHost: h\r\n\r\n", "GET"); body != "real" {
		t.Fatalf("next client got %q; want its own answer", body)
	}
}

// TestLean_ClientGoneMidStream: the answer began at once, the client leaves
// during the stream; the exchange must see it and cut the upstream.
func TestLean_ClientGoneMidStream(t *testing.T) {
	t.Parallel()
	cancelled := make(chan struct{})
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/warm" {
			return
		}
		w.Write([]byte("event: 1\n\n"))
		http.NewResponseController(w).Flush()
		select {
		case <-r.Context().Done():
			close(cancelled)
		case <-time.After(10 * time.Second):
		}
	})
	p := startWarmProxy(t, up.url(t))
	c := sendRaw(t, p, "GET /events HTTP/1.1\r\nHost: h\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := resp.Body.Read(make([]byte, 64)); err != nil {
		t.Fatal(err)
	}
	left := time.Now()
	c.Close()
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream stream was not cut when the client left")
	}
	e := await(t, p, 2)[1]
	if e.Outcome != OutcomeClientGone || e.ClientGone.Before(left) || e.Status != 200 {
		t.Fatalf("entry %+v", e)
	}
}

// TestLean_DeadlinesDoNotOutliveTheirStep: the head's read deadline must
// not end a slow answer, and an old write deadline must not cut the next
// response after an idle spell.
func TestLean_DeadlinesDoNotOutliveTheirStep(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			w.Header().Set("Link", "</a.css>; rel=preload")
			w.WriteHeader(http.StatusEarlyHints)
			time.Sleep(300 * time.Millisecond)
		}
		w.Header().Set("X-Big", strings.Repeat("b", 16<<10))
		w.Write([]byte("ok"))
	})
	p := startProxy(t, WithUpstream(up.url(t)), WithLimits(Limits{ReadHeaderTimeout: 100 * time.Millisecond, WriteStallTimeout: 100 * time.Millisecond}))
	if resp, body := rawExchange(t, hostOf(p), "GET /slow HTTP/1.1\r\nHost: h\r\n\r\n", "GET"); resp == nil || body != "ok" {
		t.Fatalf("slow answer after a 103: %v %q", resp, body)
	}
	c, err := net.Dial("tcp", hostOf(p))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	for i := range 2 {
		io.WriteString(c, "GET /big HTTP/1.1\r\nHost: h\r\n\r\n")
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
		io.Copy(io.Discard, resp.Body)
		time.Sleep(300 * time.Millisecond) // idle past the write-stall limit
	}
}

func TestLean_NewConnectionMustStartInTime(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, nil)
	p := startProxy(t, WithUpstream(up.url(t)), WithLimits(Limits{ReadHeaderTimeout: 100 * time.Millisecond, IdleTimeout: time.Minute}))
	c, err := net.Dial("tcp", hostOf(p))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	start := time.Now()
	if _, err := c.Read(make([]byte, 1)); err != io.EOF || time.Since(start) > 3*time.Second {
		t.Fatalf("silent connection: %v after %v; want it closed after ReadHeaderTimeout", err, time.Since(start))
	}
}

func TestLean_EarlyAnswerWhileSendingTheBody(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		w.WriteHeader(http.StatusRequestEntityTooLarge)
	})
	p := startProxy(t, WithUpstream(up.url(t)))
	resp, _, err := do(t, client(), "POST", p.URL()+"/upload", strings.Repeat("x", 4<<20))
	if err != nil || resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("got %v, %v; want the upstream's 413", resp, err)
	}
	if e := await(t, p, 1)[0]; e.UpstreamStatuses[0] != http.StatusRequestEntityTooLarge {
		t.Fatalf("entry %+v", e)
	}
}

func TestLean_HostIsNotAHeader(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, nil)
	p := startProxy(t, WithUpstream(up.url(t)), WithHeaders("Host", "X-Tenant-Id"),
		WithRules(Rule{Name: "by-host", Match: Match{Headers: map[string]string{"Host": "*"}}, Fault: Abort{Status: 418}}))
	resp, _ := rawExchange(t, hostOf(p), "GET / HTTP/1.1\r\nHost: h\r\nX-Tenant-Id: t1\r\n\r\n", "GET")
	if resp == nil || resp.StatusCode != 200 || p.lean.handed.Load() != 0 {
		t.Fatalf("got %v, handed %d; a rule on Host matches nothing, as on net/http", resp, p.lean.handed.Load())
	}
	if e := await(t, p, 1)[0]; !reflect.DeepEqual(e.Headers, map[string]string{"X-Tenant-Id": "t1"}) {
		t.Fatalf("journaled headers %v", e.Headers)
	}
}

func TestLean_CloseIsAShutdownNotAClientLeaving(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("begin"))
		http.NewResponseController(w).Flush()
		<-r.Context().Done()
	})
	p := startProxy(t, WithUpstream(up.url(t))) // closing twice is harmless
	c, err := net.Dial("tcp", hostOf(p))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: h\r\n\r\n")
	if _, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil {
		t.Fatal(err)
	}
	p.Close()
	e := await(t, p, 1)[0]
	if e.Outcome != OutcomeShutdown || !e.ClientGone.IsZero() {
		t.Fatalf("entry %+v", e)
	}
}
