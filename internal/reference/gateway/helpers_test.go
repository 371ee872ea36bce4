package gateway_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/headers"
	"github.com/resilcheck/resilcheck/internal/reference/gateway"
)

// seen is one request as the upstream service received it.
type seen struct {
	Method, Path string
	Header       http.Header
	Body         string
}

// service is a tiny real payments service on a loopback listener; it
// records every request and answers with handle.
type service struct {
	*httptest.Server
	mu    sync.Mutex
	reqs  []seen
	calls chan seen // every arrival, for tests that wait on one
}

func newService(t *testing.T, handle http.HandlerFunc) *service {
	t.Helper()
	s := &service{calls: make(chan seen, 64)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rec := seen{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: string(b)}
		s.mu.Lock()
		s.reqs = append(s.reqs, rec)
		s.mu.Unlock()
		select {
		case s.calls <- rec:
		default:
		}
		handle(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *service) requests() []seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seen(nil), s.reqs...)
}

// created answers like the payments service's first success.
func created(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Location", "/v1/payments/pay_1")
	w.Header().Set("X-Internal", "secret")
	w.WriteHeader(http.StatusCreated)
	_, _ = io.WriteString(w, `{"id":"pay_1"}`)
}

func newGateway(t *testing.T, serviceURL string, opts ...gateway.Option) *gateway.Gateway {
	t.Helper()
	gw, err := gateway.New(append([]gateway.Option{gateway.WithServiceURL(serviceURL)}, opts...)...)
	if err != nil {
		t.Fatalf("gateway.New: %v", err)
	}
	t.Cleanup(func() { _ = gw.Close() })
	return gw
}

// serve puts gw on a loopback listener.
func serve(t *testing.T, gw http.Handler) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(gw)
	t.Cleanup(s.Close)
	return s
}

// clock is a manually advanced wall clock for rate-limit arithmetic.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Unix(1_700_000_000, 250_000_000)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// do runs one request through gw in process.
func do(gw http.Handler, method, target, tenant string) *http.Response {
	req := httptest.NewRequest(method, target, nil)
	if tenant != "" {
		req.Header.Set("X-Tenant-ID", tenant)
	}
	rec := httptest.NewRecorder()
	gw.ServeHTTP(rec, req)
	return rec.Result()
}

// limits is the rate-limit fields of one response, parsed strictly.
type limits struct {
	Q, W, R, T              int64
	XLimit, XRemain, XReset int64
}

var (
	policyRE = regexp.MustCompile(`^"tenant";q=(0|[1-9][0-9]*);w=([1-9][0-9]*)$`)
	limitRE  = regexp.MustCompile(`^"tenant";r=(0|[1-9][0-9]*);t=(0|[1-9][0-9]*)$`)
	digitsRE = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)
)

// parseLimits checks the five fields' syntax strictly (RL-01, RL-02, RL-07,
// RL-21) and that the standard and X- fields agree (RL-24).
func parseLimits(h http.Header, now time.Time) (limits, error) { return parseLimitsSlack(h, now, 0) }

// parseLimitsSlack is parseLimits for responses timed on a real clock: the
// reset check allows slack either side of the (t-1, t] interval.
func parseLimitsSlack(h http.Header, now time.Time, slack time.Duration) (limits, error) {
	var l limits
	for _, k := range []string{headers.RateLimitPolicy, headers.RateLimit, headers.XRateLimitLimit,
		headers.XRateLimitRemaining, headers.XRateLimitReset} {
		if n := len(h.Values(k)); n != 1 {
			return l, fmt.Errorf("%s: %d values, want 1", k, n)
		}
	}
	p := policyRE.FindStringSubmatch(h.Get(headers.RateLimitPolicy))
	r := limitRE.FindStringSubmatch(h.Get(headers.RateLimit))
	if p == nil || r == nil {
		return l, fmt.Errorf("bad syntax: policy %q ratelimit %q", h.Get(headers.RateLimitPolicy), h.Get(headers.RateLimit))
	}
	l.Q, l.W, l.R, l.T = atoi(p[1]), atoi(p[2]), atoi(r[1]), atoi(r[2])
	for _, f := range []struct {
		k string
		v *int64
	}{{headers.XRateLimitLimit, &l.XLimit}, {headers.XRateLimitRemaining, &l.XRemain}, {headers.XRateLimitReset, &l.XReset}} {
		v := h.Get(f.k)
		if !digitsRE.MatchString(v) {
			return l, fmt.Errorf("%s %q: not an integer", f.k, v)
		}
		*f.v = atoi(v)
	}
	switch delta := time.Unix(l.XReset, 0).Sub(now); {
	case l.XLimit != l.Q || l.XRemain != l.R:
		return l, fmt.Errorf("X-RateLimit-Limit/Remaining %d/%d disagree with q/r %d/%d", l.XLimit, l.XRemain, l.Q, l.R)
	case delta <= time.Duration(l.T-1)*time.Second-slack || delta > time.Duration(l.T)*time.Second+slack:
		return l, fmt.Errorf("X-RateLimit-Reset - now = %s, want within (t-1, t] for t=%d", delta, l.T)
	case l.R > l.Q:
		return l, fmt.Errorf("r=%d above q=%d", l.R, l.Q)
	}
	return l, nil
}

// retryAfterSeconds parses Retry-After strictly as delay-seconds (HS-01).
func retryAfterSeconds(h http.Header) (int64, error) {
	v := h.Get("Retry-After")
	if !digitsRE.MatchString(v) {
		return 0, fmt.Errorf("Retry-After %q is not delay-seconds", v)
	}
	if _, err := headers.ParseRetryAfter(v, time.Now()); err != nil {
		return 0, err
	}
	return atoi(v), nil
}

func atoi(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}
