package builtin

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/check/checktest"
	"github.com/resilcheck/resilcheck/headers"
)

// policyFake is a small payments service with its own retry policy,
// written to be judged against what a spec declares about it: exponential
// backoff min(cap, base·2ⁿ)·(1 ± jitter), an attempt cap, an optional
// breaker, and a rate-limited GET /v1/limits. It ignores Retry-After.
type policyFake struct {
	dep       string // the dependency proxy's URL
	attempts  int
	base, cap time.Duration
	jitter    float64
	// breakerOpen, when set, opens a breaker for that long after 5
	// consecutive failed calls: requests then get 503 without a call.
	breakerOpen time.Duration
	// quota, when set, limits each tenant's payments to quota per second,
	// advertised in RateLimit fields; the 429 says when to come back.
	quota   int
	window  time.Duration // the quota's window; 0 = 1 s
	windows map[string]quotaWindow
	// throttle, when set, throttles retries as gRFC A6 does: 10 tokens, a
	// failed call costs 1, a success earns 0.1, a retry only above 5.
	throttle bool
	tokens   float64
	// resend, when set, puts a gateway in front that re-sends a POST the
	// service answered with a 5xx, up to resend more times.
	resend int
	// failStatus answers a request whose calls all failed; 0 = 503.
	failStatus int

	mu        sync.Mutex
	rnd       *rand.Rand
	failures  int
	openUntil time.Time
}

func (f *policyFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.resend == 0 {
		f.serve(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	for n := 0; ; n++ {
		rec := httptest.NewRecorder()
		r.Body = io.NopCloser(bytes.NewReader(body))
		f.serve(rec, r)
		if rec.Code < 500 || n == f.resend {
			w.WriteHeader(rec.Code)
			return
		}
	}
}

func (f *policyFake) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/healthz":
		return
	case r.URL.Path == "/v1/limits":
		w.Header().Set(headers.RateLimitPolicy, `"fake";q=1000;w=60`)
		w.Header().Set(headers.RateLimit, `"fake";r=999;t=60`)
		return
	}
	if f.quota > 0 && !f.admit(w, r.Header.Get("X-Tenant-ID")) {
		return
	}
	budget, ok, _ := headers.Timeout(r.Header)
	if !ok {
		budget = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(r.Context(), budget)
	defer cancel()
	for n := 0; n < f.attempts; n++ {
		if f.open() {
			break
		}
		if f.call(ctx, r.Header.Get("Idempotency-Key")) {
			w.WriteHeader(http.StatusCreated)
			return
		}
		if n+1 == f.attempts || !f.mayRetry() {
			break
		}
		if check.Sleep(ctx, f.wait(n)); ctx.Err() != nil {
			break
		}
	}
	w.WriteHeader(cmp.Or(f.failStatus, http.StatusServiceUnavailable))
}

// quotaWindow is one tenant's current one-second quota window.
type quotaWindow struct {
	start time.Time
	used  int
}

// admit charges one request to tenant's window and writes the RateLimit
// fields; a refused request is answered 429 here.
func (f *policyFake) admit(w http.ResponseWriter, tenant string) bool {
	f.mu.Lock()
	now := time.Now()
	win := f.windows[tenant]
	window := cmp.Or(f.window, time.Second)
	if now.Sub(win.start) >= window {
		win = quotaWindow{start: now}
	}
	ok := win.used < f.quota
	if ok {
		win.used++
	}
	f.windows[tenant] = win
	reset := max(1, int(time.Until(win.start.Add(window)).Seconds()+0.999))
	f.mu.Unlock()
	w.Header().Set(headers.RateLimitPolicy, fmt.Sprintf(`"fake";q=%d;w=%d`, f.quota, int(window.Seconds())))
	w.Header().Set(headers.RateLimit, fmt.Sprintf(`"fake";r=%d;t=%d`, f.quota-win.used, reset))
	if !ok {
		w.Header().Set("Retry-After", fmt.Sprint(reset))
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, "quota exhausted: come back after Retry-After")
	}
	return ok
}

// call makes one dependency call and reports whether it succeeded.
func (f *policyFake) call(ctx context.Context, key string) bool {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.dep+"/charges", bytes.NewReader([]byte(`{}`)))
	req.Header.Set("Idempotency-Key", key)
	resp, err := http.DefaultClient.Do(req)
	ok := err == nil && resp.StatusCode < 300
	if err == nil {
		resp.Body.Close()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if ok {
		f.failures, f.tokens = 0, min(10, f.tokens+0.1)
		return true
	}
	f.tokens = max(0, f.tokens-1)
	if f.failures++; f.breakerOpen > 0 && f.failures >= 5 {
		f.openUntil, f.failures = time.Now().Add(f.breakerOpen), 0
	}
	return false
}

// mayRetry is the retry throttle's verdict after a failed call.
func (f *policyFake) mayRetry() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.throttle || f.tokens > 5
}

func (f *policyFake) open() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return time.Now().Before(f.openUntil)
}

func (f *policyFake) wait(n int) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	v := check.CeilFor(f.base, f.cap, n)
	return time.Duration(float64(v) * (1 + f.jitter*(2*f.rnd.Float64()-1)))
}

// policyFakeHarness starts front proxy → fake → dependency proxy (a
// stand-in that charges) on loopback, with p declared.
func policyFakeHarness(t *testing.T, f *policyFake, p check.Policy) *check.Harness {
	t.Helper()
	f.rnd, f.windows, f.tokens = rand.New(rand.NewPCG(7, 8)), map[string]quotaWindow{}, 10
	if f.cap == 0 {
		f.cap = time.Hour
	}
	st := checktest.Start(t, f, &f.dep)
	frontURL, front, dep, j := st.URL, st.Front, st.Dependency, st.Journal
	return &check.Harness{
		TargetURL: frontURL, Front: front, Dependency: dep, Journal: j, Seed: 1, Policy: p,
		Operation: check.Operation{Method: http.MethodPost, Path: "/v1/payments", EffectMethod: http.MethodPost, EffectPath: "/charges",
			Render: func(v check.Values, _ bool) ([]byte, error) { return fmt.Appendf(nil, `{"amount":%d}`, v.Amount), nil }},
	}
}
