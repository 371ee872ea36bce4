package faults

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestProxy_PassThrough(t *testing.T) {
	t.Parallel()
	var got *http.Request
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		got = r
		w.Header().Set("X-RateLimit-Remaining", "9")
		io.Copy(w, r.Body)
	})
	base := up.url(t)
	base.Path = "/base"
	p := startProxy(t, WithUpstream(base))
	resp, body, err := do(t, client(), "PUT", p.URL()+"/v1/a%20b?x=1", "payload",
		"Idempotency-Key", "k-1", "Connection", "X-Secret", "X-Secret", "s", "Keep-Alive", "timeout=5")
	if err != nil || resp.StatusCode != 200 || body != "payload" {
		t.Fatal(resp, err, body)
	}
	if got.URL.Path != "/base/v1/a b" || got.URL.RawQuery != "x=1" || got.Host != base.Host ||
		got.Header.Get("Idempotency-Key") != "k-1" || got.Header.Get("X-Secret") != "" || got.Header.Get("Keep-Alive") != "" {
		t.Fatalf("upstream saw %s %s host %s headers %v", got.Method, got.URL, got.Host, got.Header)
	}
	e := await(t, p, 1)[0]
	if e.Header("Idempotency-Key") != "k-1" || e.ResponseHeader("X-RateLimit-Remaining") != "9" ||
		e.BytesIn != 7 || e.BytesOut != 7 || len(e.BodySHA256) != 32 || e.Outcome != OutcomePassed ||
		e.Forwarded.Before(e.Received) || e.Answered.Before(e.Forwarded) || e.Finished.Before(e.Answered) {
		t.Fatalf("journal %+v", e)
	}
}

func TestProxy_UnreachableUpstream(t *testing.T) {
	t.Parallel()
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	p := startProxy(t, WithUpstream(&url.URL{Scheme: "http", Host: addr}))
	resp, body, err := do(t, client(), "GET", p.URL()+"/", "")
	if err != nil || resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, "upstream") {
		t.Fatal(resp, err, body)
	}
	e := await(t, p, 1)[0]
	if e.Outcome != OutcomeUpstreamError || e.Status != 502 || !strings.Contains(e.Error, "refused") || e.UpstreamStatuses[0] != 0 {
		t.Fatalf("journal %+v", e)
	}
}

func TestProxy_Oversized(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, nil)
	p := startProxy(t, WithUpstream(up.url(t)), WithLimits(Limits{MaxBodyBytes: 1000, MaxHeaderBytes: 4096}))
	resp, _, err := do(t, client(), "POST", p.URL()+"/", strings.Repeat("x", 1001))
	if err != nil || resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatal(resp, err)
	}
	// Chunked: the size is only known while reading.
	req, _ := http.NewRequest("POST", p.URL()+"/", io.MultiReader(strings.NewReader(strings.Repeat("x", 5000))))
	req.ContentLength = -1
	if resp, err := client().Do(req); err != nil || resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatal(resp, err)
	}
	// The server answers 431 and closes; reading the body may see the reset.
	resp, _, err = do(t, client(), "GET", p.URL()+"/", "", "X-Big", strings.Repeat("h", 8192))
	if resp == nil || resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatal(resp, err)
	}
	if up.calls.Load() != 0 {
		t.Fatalf("oversized requests reached the upstream %d times", up.calls.Load())
	}
	if e := await(t, p, 2); len(e) != 2 || e[0].Outcome != OutcomeRejected {
		t.Fatalf("journal %+v", e)
	}
}

// rawRequest writes a raw HTTP/1.1 request and returns the status line.
func rawRequest(t *testing.T, addr, req string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second)) // a hang fails the test instead of blocking it
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatalf("no status line: %v", err)
	}
	return strings.TrimSpace(line)
}

func TestProxy_NotAnOpenProxy(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, nil)
	p := startProxy(t, WithUpstream(up.url(t)))
	addr := strings.TrimPrefix(p.URL(), "http://")
	tests := []struct{ req, want string }{
		{"GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n", "403"},
		{"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", "405"},
		{"GET " + up.URL + "/ok HTTP/1.1\r\nHost: x\r\n\r\n", "200"},
	}
	for _, tt := range tests {
		if got := rawRequest(t, addr, tt.req); !strings.Contains(got, " "+tt.want+" ") {
			t.Errorf("%q: got %q; want %s", tt.req, got, tt.want)
		}
	}
	if up.calls.Load() != 1 {
		t.Fatalf("upstream called %d times; want 1", up.calls.Load())
	}
}

func TestProxy_SlowClientBody(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, nil)
	p := startProxy(t, WithUpstream(up.url(t)), WithLimits(Limits{BodyReadTimeout: 200 * time.Millisecond}))
	got := rawRequest(t, strings.TrimPrefix(p.URL(), "http://"), "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab")
	if !strings.Contains(got, " 408 ") {
		t.Fatalf("got %q", got)
	}
	if up.calls.Load() != 0 {
		t.Fatal("partial body was forwarded")
	}
}

func TestProxy_SlowReaderIsDropped(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("z", 32<<20)
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, big) })
	p := startProxy(t, WithUpstream(up.url(t)), WithLimits(Limits{WriteStallTimeout: 200 * time.Millisecond}))
	c, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n") // and never read the answer
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	es, err := p.Journal().Next(ctx, 0)
	if err != nil {
		t.Fatal("exchange with a stalled reader never finished")
	}
	if es[0].BytesOut >= int64(len(big)) || es[0].Outcome != OutcomeClientGone {
		t.Fatalf("journal %+v", es[0])
	}
}

func TestReset_TCP(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, nil)
	p := startProxy(t, WithUpstream(up.url(t)), WithRules(Rule{Name: "rst", Fault: Reset{}}))
	_, _, err := do(t, client(), "GET", p.URL()+"/", "")
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("got %v; want connection reset", err)
	}
	if up.calls.Load() != 0 {
		t.Fatal("reset forwarded the request")
	}
}

func TestDropResponse_AfterCommit(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, nil)
	p := startProxy(t, WithUpstream(up.url(t)), WithRules(
		Rule{Name: "lose-first", Match: Match{First: 1}, Fault: DropResponse{Mode: "reset"}}))
	if _, _, err := do(t, client(), "POST", p.URL()+"/charges", "c1"); err == nil {
		t.Fatal("first answer was not lost")
	}
	if up.calls.Load() != 1 {
		t.Fatalf("upstream saw %d calls; want 1 (committed)", up.calls.Load())
	}
	resp, body, err := do(t, client(), "POST", p.URL()+"/charges", "c1")
	if err != nil || resp.StatusCode != 200 || body != "echo:c1" {
		t.Fatal(resp, err, body)
	}
	es := await(t, p, 2)
	if es[0].BodySHA256 != es[1].BodySHA256 || es[0].Status != 0 || es[0].UpstreamStatuses[0] != 200 {
		t.Fatalf("journal %+v", es)
	}
}

func TestProxy_DownstreamCancellation(t *testing.T) {
	t.Parallel()
	j := NewJournal()
	dep := startProxy(t, WithSide("dependency"), WithJournal(j), WithRules(Rule{Name: "hang", Fault: Blackhole{}}))
	calling := make(chan struct{}, 1)
	target := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		req, _ := http.NewRequestWithContext(r.Context(), "POST", dep.URL()+"/v1/charges", nil)
		req.Header.Set("Idempotency-Key", "k-cancel")
		calling <- struct{}{}
		if resp, err := client().Do(req); err == nil {
			resp.Body.Close()
		}
	})
	front := startProxy(t, WithSide("front"), WithJournal(j), WithUpstream(target.url(t)))
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, "POST", front.URL()+"/pay", nil)
	go func() { <-calling; time.Sleep(50 * time.Millisecond); cancel() }()
	if _, err := client().Do(req); err == nil {
		t.Fatal("got an answer through a blackhole")
	}
	wait, stop := context.WithTimeout(t.Context(), 30*time.Second)
	defer stop()
	es, err := j.Next(wait, 0, BySide("dependency"), ByHeader("Idempotency-Key", "k-cancel"))
	if err != nil {
		t.Fatal("dependency proxy never saw the call end")
	}
	if e := es[0]; e.ClientGone.IsZero() || e.Outcome != OutcomeClientGone || e.ClientGone.Before(e.Received) {
		t.Fatalf("dependency entry %+v", e)
	}
}

func TestProxy_RulesChangedUnderLoad(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	p := startProxy(t, WithUpstream(up.url(t)))
	const workers, each = 8, 40
	c := client()
	c.Timeout = 30 * time.Second // a hung request fails the test
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				resp, body, err := do(t, c, "POST", p.URL()+"/x", fmt.Sprint(w, i))
				switch {
				case err != nil:
					errs <- err
				case resp.StatusCode == 200 && body != "ok", resp.StatusCode != 200 && resp.StatusCode != 503:
					errs <- fmt.Errorf("status %d body %q", resp.StatusCode, body)
				}
			}
		})
	}
	stop := make(chan struct{})
	churn := sync.WaitGroup{}
	churn.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			name := fmt.Sprint("r", i%3)
			p.Rules().Remove(name)
			var f Fault = Abort{Status: 503}
			switch i % 3 {
			case 1:
				f = Delay{Duration: time.Millisecond}
			case 2:
				f = Duplicate{}
			}
			if err := p.Rules().Add(Rule{Name: name, Match: Match{Probability: 0.3}, Fault: f}); err != nil {
				errs <- err
			}
			if i%10 == 0 {
				p.Rules().Reset()
			}
			time.Sleep(time.Millisecond)
		}
	})
	wg.Wait()
	close(stop)
	churn.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := len(await(t, p, workers*each)); n != workers*each {
		t.Fatalf("journal has %d entries; want %d", n, workers*each)
	}
}

func TestProxy_SameSeedSameDecisions(t *testing.T) {
	t.Parallel()
	run := func(seed uint64) []int {
		up := newUpstream(t, nil)
		p := startProxy(t, WithUpstream(up.url(t)), WithSeed(seed), WithRules(
			Rule{Name: "lose-half", Match: Match{Path: "/v1/payments*", Probability: 0.5}, Fault: Abort{Status: 503}}))
		var codes []int
		for range 40 {
			resp, _, err := do(t, client(), "POST", p.URL()+"/v1/payments", "")
			if err != nil {
				t.Fatal(err)
			}
			codes = append(codes, resp.StatusCode)
		}
		return codes
	}
	a, b, c := run(99), run(99), run(100)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("same seed:\n%v\n%v", a, b)
	}
	if fmt.Sprint(a) == fmt.Sprint(c) {
		t.Fatal("different seeds, same decisions")
	}
}

func TestProxy_FloodOfIdleConnections(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, nil)
	p := startProxy(t, WithUpstream(up.url(t)), WithLimits(Limits{MaxConns: 8, ReadHeaderTimeout: 300 * time.Millisecond}))
	addr := strings.TrimPrefix(p.URL(), "http://")
	var idle []net.Conn
	for range 40 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			break // the backlog is full: also fine
		}
		io.WriteString(c, "GET / HTTP/1.1\r\n") // never finish the headers
		idle = append(idle, c)
	}
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	cl := client()
	cl.Timeout = 60 * time.Second
	resp, body, err := do(t, cl, "GET", p.URL()+"/", "")
	if err != nil || resp.StatusCode != 200 || body != "echo:" {
		t.Fatal(resp, err, body)
	}
}

// TestProxy_HTTP2Cleartext: h2c is served, and the journal says which
// protocol each exchange used (a connection carries many h2 streams but
// one HTTP/1.1 exchange at a time, on the lean path or net/http's).
func TestProxy_HTTP2Cleartext(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, nil)
	p := startProxy(t, WithUpstream(up.url(t)))
	var protos http.Protocols
	protos.SetUnencryptedHTTP2(true)
	c := &http.Client{Transport: &http.Transport{Protocols: &protos}}
	resp, body, err := do(t, c, "POST", p.URL()+"/", "h2")
	if err != nil || resp.ProtoMajor != 2 || body != "echo:h2" {
		t.Fatal(resp, err, body)
	}
	if _, _, err := do(t, client(), "POST", p.URL()+"/", "h1"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var protoOf []string
	for len(protoOf) < 2 {
		es, err := p.Journal().Next(ctx, uint64(len(protoOf)))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			protoOf = append(protoOf, e.Proto)
		}
	}
	if !slices.Equal(protoOf, []string{"HTTP/2.0", "HTTP/1.1"}) {
		t.Errorf("journaled protocols %q; want HTTP/2.0 then HTTP/1.1", protoOf)
	}
}
