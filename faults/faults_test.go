package faults

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// withStandIn runs f in a synctest bubble against a stand-in proxy served
// over in-memory pipes, so fault timing is exact and no sockets are used.
func withStandIn(t *testing.T, rules []Rule, f func(t *testing.T, p *Proxy, c *http.Client), opts ...Option) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		p, err := NewProxy(append([]Option{WithSeed(7), WithRules(rules...)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		c, stop := memProxy(t, p)
		defer stop()
		f(t, p, c)
	})
}

func get(t *testing.T, c *http.Client, path string, hdr ...string) (*http.Response, string, error) {
	t.Helper()
	return do(t, c, "GET", "http://mem"+path, "", hdr...)
}

// last waits for the journal's newest entry.
func last(t *testing.T, p *Proxy) Entry {
	t.Helper()
	synctest.Wait()
	es := p.Journal().Snapshot()
	if len(es) == 0 {
		t.Fatal("journal is empty")
	}
	return es[len(es)-1]
}

func TestDelay_Inject(t *testing.T) {
	t.Parallel()
	rules := []Rule{
		{Name: "req", Match: Match{Path: "/req"}, Fault: Delay{Duration: 2 * time.Second}},
		{Name: "resp", Match: Match{Path: "/resp"}, Fault: Delay{Duration: 3 * time.Second, Phase: "response"}},
	}
	withStandIn(t, rules, func(t *testing.T, p *Proxy, c *http.Client) {
		start := time.Now()
		resp, body, err := get(t, c, "/req")
		if err != nil || resp.StatusCode != 200 || body != "{}" {
			t.Fatal(resp, body, err)
		}
		if d := time.Since(start); d != 2*time.Second {
			t.Fatalf("request delay took %v", d)
		}
		e := last(t, p)
		if e.Forwarded.Sub(e.Received) != 2*time.Second || e.Rule != "req" || e.Fault != "delay" {
			t.Fatalf("journal %+v", e)
		}
		get(t, c, "/resp")
		e = last(t, p)
		if e.Answered.Sub(e.Forwarded) != 0 || e.Finished.Sub(e.Answered) != 3*time.Second {
			t.Fatalf("response delay: journal %+v", e)
		}
	})
}

func TestDelay_JitterIsSeeded(t *testing.T) {
	t.Parallel()
	waits := func() []time.Duration {
		var out []time.Duration
		rules := []Rule{{Name: "j", Fault: Delay{Duration: time.Second, Jitter: 500 * time.Millisecond}}}
		withStandIn(t, rules, func(t *testing.T, p *Proxy, c *http.Client) {
			for range 5 {
				get(t, c, "/")
				e := last(t, p)
				out = append(out, e.Forwarded.Sub(e.Received))
			}
		})
		return out
	}
	a, b := waits(), waits()
	distinct := map[time.Duration]bool{}
	for i := range a {
		if a[i] != b[i] || a[i] < 500*time.Millisecond || a[i] > 1500*time.Millisecond {
			t.Fatalf("waits %v and %v", a, b)
		}
		distinct[a[i]] = true
	}
	if len(distinct) < 2 {
		t.Fatalf("jitter did not vary: %v", a)
	}
}

func TestAbort_Inject(t *testing.T) {
	t.Parallel()
	rules := []Rule{{Name: "busy", Match: Match{First: 1}, Fault: Abort{Status: 429, Headers: map[string]string{"Retry-After": "1"}, Body: "busy"}}}
	withStandIn(t, rules, func(t *testing.T, p *Proxy, c *http.Client) {
		resp, body, _ := get(t, c, "/")
		if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "1" || body != "busy" {
			t.Fatal(resp, body)
		}
		if e := last(t, p); e.UpstreamCalls != 0 || e.ResponseHeader("retry-after") != "1" || e.Outcome != OutcomeFaulted {
			t.Fatalf("journal %+v", e)
		}
		if resp, _, _ := get(t, c, "/"); resp.StatusCode != 200 {
			t.Fatalf("second request: %d", resp.StatusCode)
		}
	})
}

func TestRespond_Template(t *testing.T) {
	t.Parallel()
	rules := []Rule{{Name: "r", Fault: Respond{Status: 201, Headers: map[string]string{"Content-Type": "application/json"},
		Body: `{"n":{{.N}},"key":"{{.Header "Idempotency-Key"}}","path":"{{.Path}}"}`}}}
	withStandIn(t, rules, func(t *testing.T, p *Proxy, c *http.Client) {
		get(t, c, "/a")
		resp, body, _ := get(t, c, "/b", "Idempotency-Key", "k-9")
		if resp.StatusCode != 201 || body != `{"n":2,"key":"k-9","path":"/b"}` {
			t.Fatal(resp.StatusCode, body)
		}
	})
}

func TestStandIn_Default(t *testing.T) {
	t.Parallel()
	withStandIn(t, nil, func(t *testing.T, p *Proxy, c *http.Client) {
		resp, body, _ := get(t, c, "/")
		if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "2" || body != "down" {
			t.Fatal(resp, body)
		}
		if e := last(t, p); e.UpstreamCalls != 1 || e.Outcome != OutcomePassed {
			t.Fatalf("journal %+v", e)
		}
	}, WithStandIn(Respond{Status: 503, Headers: map[string]string{"Retry-After": "2"}, Body: "down"}))
}

func TestBlackhole_Inject(t *testing.T) {
	t.Parallel()
	rules := []Rule{
		{Name: "timeout", Match: Match{Path: "/t"}, Fault: Blackhole{Timeout: 5 * time.Second, Mode: "status"}},
		{Name: "forever", Match: Match{Path: "/f"}, Fault: Blackhole{}},
	}
	withStandIn(t, rules, func(t *testing.T, p *Proxy, c *http.Client) {
		start := time.Now()
		resp, _, _ := get(t, c, "/t")
		if resp.StatusCode != 504 || time.Since(start) != 5*time.Second {
			t.Fatalf("status %d after %v", resp.StatusCode, time.Since(start))
		}
		// The client gives up after 1 s: the journal says so, with the time.
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://mem/f", nil)
		if _, err := c.Do(req); err == nil {
			t.Fatal("blackhole answered")
		}
		e := last(t, p)
		if e.Outcome != OutcomeClientGone || e.Offset(e.ClientGone)-e.Offset(e.Received) != time.Second || e.Status != 0 {
			t.Fatalf("journal %+v", e)
		}
	})
}

func TestBlackhole_ReleasedWhenRuleRemoved(t *testing.T) {
	t.Parallel()
	withStandIn(t, []Rule{{Name: "hole", Fault: Blackhole{}}}, func(t *testing.T, p *Proxy, c *http.Client) {
		done := make(chan int)
		go func() {
			resp, _, _ := get(t, c, "/")
			done <- resp.StatusCode
		}()
		time.Sleep(time.Minute)
		synctest.Wait()
		p.Rules().Reset()
		if code := <-done; code != 200 {
			t.Fatalf("released request got %d", code)
		}
	})
}

func TestThrottle_Inject(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("x", 300)
	rules := []Rule{{Name: "slow", Fault: Throttle{Rate: 100, Chunk: 10}}}
	withStandIn(t, rules, func(t *testing.T, p *Proxy, c *http.Client) {
		start := time.Now()
		_, got, err := get(t, c, "/")
		if err != nil || got != body {
			t.Fatal(err, len(got))
		}
		// 30 chunks of 10 B at 100 B/s: the last one is due at 2.9 s.
		if d := time.Since(start); d != 2900*time.Millisecond {
			t.Fatalf("took %v", d)
		}
	}, WithStandIn(Respond{Body: body}))
}

func TestTruncate_Inject(t *testing.T) {
	t.Parallel()
	rules := []Rule{{Name: "cut", Fault: Truncate{Bytes: 10}}}
	withStandIn(t, rules, func(t *testing.T, p *Proxy, c *http.Client) {
		resp, err := c.Get("http://mem/")
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !errors.Is(err, io.ErrUnexpectedEOF) || len(b) != 10 {
			t.Fatalf("read %d bytes, err %v", len(b), err)
		}
		if e := last(t, p); e.BytesOut != 10 || e.Status != 200 {
			t.Fatalf("journal %+v", e)
		}
	}, WithStandIn(Respond{Body: strings.Repeat("y", 100)}))
}

func TestDropResponse_Inject(t *testing.T) {
	t.Parallel()
	rules := []Rule{
		{Name: "late-504", Match: Match{Path: "/s"}, Fault: DropResponse{Mode: "status", Hold: 3 * time.Second}},
		{Name: "close", Match: Match{Path: "/c"}, Fault: DropResponse{}},
	}
	withStandIn(t, rules, func(t *testing.T, p *Proxy, c *http.Client) {
		start := time.Now()
		resp, _, _ := get(t, c, "/s")
		if resp.StatusCode != 504 || time.Since(start) != 3*time.Second {
			t.Fatalf("status %d after %v", resp.StatusCode, time.Since(start))
		}
		if e := last(t, p); e.UpstreamCalls != 1 || e.Answered.IsZero() {
			t.Fatalf("journal %+v", e)
		}
		if _, _, err := get(t, c, "/c"); err == nil {
			t.Fatal("close mode delivered a response")
		}
		if e := last(t, p); e.Status != 0 || e.UpstreamCalls != 1 || e.Outcome != OutcomeFaulted {
			t.Fatalf("journal %+v", e)
		}
	})
}

func TestDuplicate_Inject(t *testing.T) {
	t.Parallel()
	rules := []Rule{
		{Name: "seq", Match: Match{Path: "/s"}, Fault: Duplicate{Copies: 3, Answer: "first"}},
		{Name: "par", Match: Match{Path: "/p"}, Fault: Duplicate{Concurrent: true}},
	}
	withStandIn(t, rules, func(t *testing.T, p *Proxy, c *http.Client) {
		for _, path := range []string{"/s", "/p"} {
			resp, body, err := get(t, c, path)
			if err != nil || resp.StatusCode != 200 || body != "{}" {
				t.Fatal(path, err, body)
			}
		}
		es := p.Journal().Snapshot()
		if es[0].UpstreamCalls != 3 || len(es[0].UpstreamStatuses) != 3 || es[1].UpstreamCalls != 2 {
			t.Fatalf("journal %+v", es)
		}
	})
}

func TestReset_Inject(t *testing.T) {
	t.Parallel()
	withStandIn(t, []Rule{{Name: "rst", Fault: Reset{Hold: time.Second}}}, func(t *testing.T, p *Proxy, c *http.Client) {
		start := time.Now()
		if _, _, err := get(t, c, "/"); err == nil {
			t.Fatal("reset delivered a response")
		}
		if e := last(t, p); e.Status != 0 || e.Fault != "reset" || time.Since(start) < time.Second {
			t.Fatalf("journal %+v", e)
		}
	})
}

func TestProxy_CloseReleasesHeldExchanges(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p, _ := NewProxy(WithSeed(1), WithRules(Rule{Name: "hole", Fault: Blackhole{}}))
		c, stop := memProxy(t, p)
		errc := make(chan error)
		go func() { _, _, err := get(t, c, "/"); errc <- err }()
		synctest.Wait()
		stop()
		if err := <-errc; err == nil {
			t.Fatal("held request answered after close")
		}
		if e := last(t, p); e.Outcome != OutcomeShutdown {
			t.Fatalf("journal %+v", e)
		}
	})
}
