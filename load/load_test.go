package load

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// recorder is a loopback target that keeps what each request carried.
type recorder struct {
	mu   sync.Mutex
	reqs []seen
}

type seen struct {
	key, tenant, extra, body string
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.reqs = append(rc.reqs, seen{r.Header.Get("Idempotency-Key"), r.Header.Get("X-Tenant-ID"), r.Header.Get("X-Extra"), string(b)})
	rc.mu.Unlock()
	w.WriteHeader(http.StatusCreated)
}

func TestRun_HeadersAndBody(t *testing.T) {
	t.Parallel()
	rc := &recorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	spec := Spec{
		URL: srv.URL, Method: http.MethodPost,
		Body:      []byte(`{"seq":{{.Seq}},"key":"{{.Key}}","tenant":"{{.Tenant}}"}`),
		Header:    http.Header{"X-Extra": {"yes"}},
		KeyHeader: "Idempotency-Key", Tenants: []string{"a", "b"},
		Pacing: Pacing{Rate: 100}, Duration: 5 * time.Second, MaxRequests: 12, Seed: 7,
	}
	var results atomic.Int64
	rep, err := Run(context.Background(), spec, func(*vegeta.Result) error { results.Add(1); return nil })
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if rep.Sent != 12 || results.Load() != 12 || len(rc.reqs) != 12 {
		t.Fatalf("sent %d, sink saw %d, server saw %d; want 12 each", rep.Sent, results.Load(), len(rc.reqs))
	}
	keys := map[string]bool{}
	tenants := map[string]int{}
	for _, s := range rc.reqs {
		if s.key == "" || keys[s.key] || s.extra != "yes" {
			t.Fatalf("request %+v: want a fresh key and the extra header", s)
		}
		keys[s.key] = true
		tenants[s.tenant]++
		if !strings.Contains(s.body, `"key":"`+s.key+`"`) || !strings.Contains(s.body, `"tenant":"`+s.tenant+`"`) {
			t.Fatalf("body %s does not carry its own key and tenant", s.body)
		}
	}
	if tenants["a"] != 6 || tenants["b"] != 6 {
		t.Fatalf("tenants %v, want 6 each (round-robin)", tenants)
	}
	if rep.Metrics.StatusCodes["201"] != 12 {
		t.Fatalf("status codes %v", rep.Metrics.StatusCodes)
	}

	// The same seed draws the same keys.
	rc2 := &recorder{}
	srv2 := httptest.NewServer(rc2)
	defer srv2.Close()
	spec.URL = srv2.URL
	if _, err := Run(context.Background(), spec, nil); err != nil {
		t.Fatalf("second Run: %v", err)
	}
	for _, s := range rc2.reqs {
		if !keys[s.key] {
			t.Fatalf("seed 7 drew key %s the first run did not", s.key)
		}
	}
}

func TestRun_RateAndShortfall(t *testing.T) {
	t.Parallel()
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer fast.Close()
	rep, err := Run(context.Background(), Spec{URL: fast.URL, Pacing: Pacing{Rate: 40}, Duration: 500 * time.Millisecond}, nil)
	if err != nil {
		t.Fatalf("Run at 40/s: %v", err)
	}
	if rep.Requested < 39.9 || rep.Requested > 40.1 || rep.Shortfall {
		t.Fatalf("requested %.2f, shortfall %v; want 40 and none", rep.Requested, rep.Shortfall)
	}

	// One worker against a target answering in 100 ms cannot send 40/s.
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-time.After(100 * time.Millisecond):
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(release)
	rep, err = Run(context.Background(), Spec{URL: slow.URL, Pacing: Pacing{Rate: 40}, Duration: 500 * time.Millisecond, MaxWorkers: 1}, nil)
	var sf *ShortfallError
	if !errors.As(err, &sf) || !rep.Shortfall || !IsShortfall(err) {
		t.Fatalf("err %v, shortfall %v; want a *ShortfallError", err, rep != nil && rep.Shortfall)
	}
	if sf.Achieved >= sf.Requested || sf.Sent >= 19 {
		t.Fatalf("shortfall %+v: achieved should be well below requested", sf)
	}
	var out bytes.Buffer
	if err := rep.WriteText(&out); err != nil || !strings.Contains(out.String(), "SHORTFALL") || !strings.Contains(out.String(), "Requests") {
		t.Fatalf("text report %q, %v", out.String(), err)
	}
}

func TestRun_ContextStops(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var n atomic.Int64
	rep, err := Run(ctx, Spec{URL: srv.URL, Pacing: Pacing{Rate: 50}, Duration: time.Minute}, func(*vegeta.Result) error {
		if n.Add(1) == 5 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || !rep.Interrupted || IsShortfall(err) {
		t.Fatalf("err %v, interrupted %v; want context.Canceled and an interrupted report", err, rep.Interrupted)
	}
	if rep.Sent < 5 || rep.Sent > 3000 {
		t.Fatalf("sent %d", rep.Sent)
	}
}

func TestSpec_Validate(t *testing.T) {
	t.Parallel()
	ok := Spec{URL: "http://127.0.0.1:1/", Pacing: Pacing{Rate: 1}, Duration: time.Second}
	cases := []struct {
		name string
		edit func(*Spec)
	}{
		{"no URL", func(s *Spec) { s.URL = "" }},
		{"relative URL", func(s *Spec) { s.URL = "/v1/payments" }},
		{"ftp URL", func(s *Spec) { s.URL = "ftp://x/" }},
		{"no duration", func(s *Spec) { s.Duration = 0 }},
		{"no rate", func(s *Spec) { s.Pacing.Rate = 0 }},
		{"unknown pacing", func(s *Spec) { s.Pacing.Kind = "square" }},
		{"sine amp above mean", func(s *Spec) { s.Pacing = Pacing{Kind: "sine", Rate: 5, Amp: 6, Period: time.Second} }},
		{"sine without period", func(s *Spec) { s.Pacing = Pacing{Kind: "sine", Rate: 5, Amp: 1} }},
		{"tolerance 1", func(s *Spec) { s.Tolerance = 1 }},
		{"bad template", func(s *Spec) { s.Body = []byte("{{.Nope") }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := ok
			c.edit(&s)
			if _, err := Run(context.Background(), s, nil); !errors.Is(err, ErrSpec) {
				t.Fatalf("err %v, want ErrSpec", err)
			}
		})
	}
}

func TestPacing_Pacer(t *testing.T) {
	t.Parallel()
	cases := []struct {
		p    Pacing
		want float64 // requests scheduled over 2 s
	}{
		{Pacing{Rate: 10}, 20},
		{Pacing{Kind: "linear", Rate: 10, Slope: 5}, 30},                      // 10·2 + 5·2²/2
		{Pacing{Kind: "sine", Rate: 10, Amp: 5, Period: 2 * time.Second}, 20}, // whole period: the mean
		{Pacing{Kind: "constant", Rate: 2.5}, 5},
	}
	for _, c := range cases {
		p, err := c.p.Pacer()
		if err != nil {
			t.Fatalf("%+v: %v", c.p, err)
		}
		if got := expectedHits(p, 2*time.Second); got < c.want-0.1 || got > c.want+0.1 {
			t.Errorf("%+v: %.2f requests over 2s, want %.0f", c.p, got, c.want)
		}
	}
}
