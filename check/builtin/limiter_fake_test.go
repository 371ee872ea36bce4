package builtin

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/check/checktest"
)

// limiterFake is a keyed payments service behind a per-tenant limiter that
// speaks only the legacy X-RateLimit-* fields (or none), as
// @fastify/rate-limit, httprate and nginx limit_req do: POST /v1/payments,
// quota requests per tenant per window, a 429 with Retry-After when spent.
type limiterFake struct {
	dep    string
	quota  int
	window time.Duration // 0 = 1 s
	// enforced, when set, is the quota really enforced (a limiter that
	// admits more than it advertises).
	enforced int
	silent   bool // no X-RateLimit-* fields at all
	// rising makes X-RateLimit-Remaining rise inside a window (a sliding
	// window's estimate, as httprate computes it).
	rising bool
	// sliding estimates the rate as httprate does, prev·(1−elapsed/w) +
	// curr over aligned windows, and advertises limit − round(rate).
	sliding bool
	// lateReset keeps refusing for ten windows after the advertised reset.
	lateReset bool
	// sharedRemaining advertises the lesser of the tenant's remaining and
	// what is left of one window every tenant's requests count in, while
	// enforcing each tenant's alone.
	sharedRemaining bool
	shared          *fakeWindow
	// global, when set, speaks the draft-10 fields instead, with two
	// policies as a two-tier gateway does: "tenant" (quota, partition key
	// the tenant) and "global" (global requests a window for all tenants),
	// both enforced.
	global    int
	globalWin *fakeWindow
	// racy checks the key store before the charge and records after it,
	// with no lock in between: concurrent copies all charge, each under a
	// charge key of its own.
	racy    bool
	charges int
	// auth takes the tenant from Authorization: Bearer TENANT and answers
	// 401 without one, as a service binding tenants to credentials does.
	auth bool
	// quick charges at once, without the 50 ms pause.
	quick bool

	mu      sync.Mutex
	windows map[string]*fakeWindow
	origins map[string]time.Time // sliding: each tenant's first request
	keys    map[string]*fakeKey
}

type fakeWindow struct {
	start   time.Time
	used    int
	prev    int       // sliding: the previous window's count
	blocked time.Time // lateReset: refused until then
}

type fakeKey struct {
	done   bool
	status int
	body   []byte
}

func (f *limiterFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/payments" {
		return
	}
	tenant, key := r.Header.Get("X-Tenant-ID"), r.Header.Get("Idempotency-Key")
	if f.auth {
		tenant = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if tenant == "" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
	}
	if !f.admit(w, tenant) {
		return
	}
	if key == "" {
		f.charge("")
		w.WriteHeader(http.StatusCreated)
		return
	}
	id := tenant + "\x00" + key
	f.mu.Lock()
	k, seen := f.keys[id]
	switch {
	case seen && k.done:
		f.mu.Unlock()
		w.WriteHeader(k.status)
		_, _ = w.Write(k.body)
		return
	case seen:
		f.mu.Unlock()
		w.WriteHeader(http.StatusConflict)
		return
	}
	charge := key
	if f.racy {
		f.charges++
		charge = fmt.Sprintf("%s-%d", key, f.charges)
	} else {
		f.keys[id] = &fakeKey{}
	}
	f.mu.Unlock()
	status, body := http.StatusCreated, fmt.Appendf(nil, `{"id":%q}`, key)
	if !f.charge(charge) {
		status = http.StatusBadGateway
	}
	f.mu.Lock()
	f.keys[id] = &fakeKey{done: true, status: status, body: body}
	f.mu.Unlock()
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// admit charges one request to tenant's window and writes the legacy
// fields; a refused request is answered 429 here.
func (f *limiterFake) admit(w http.ResponseWriter, tenant string) bool {
	window := f.window
	if window == 0 {
		window = time.Second
	}
	if f.sliding {
		return f.admitSliding(w, tenant, window)
	}
	f.mu.Lock()
	now := time.Now()
	win := f.windows[tenant]
	if win == nil || now.Sub(win.start) >= window && !now.Before(win.blocked) {
		win = &fakeWindow{start: now.Truncate(window)} // aligned, as httprate's windows are
		f.windows[tenant] = win
	}
	enforced := f.quota
	if f.enforced > 0 {
		enforced = f.enforced
	}
	ok := win.used < enforced && !now.Before(win.blocked)
	if f.global > 0 {
		if start := now.Truncate(window); f.globalWin == nil || !f.globalWin.start.Equal(start) {
			f.globalWin = &fakeWindow{start: start}
		}
		if ok = ok && f.globalWin.used < f.global; ok {
			f.globalWin.used++
		}
	}
	if ok {
		win.used++
	} else if f.lateReset && win.blocked.IsZero() {
		win.blocked = win.start.Add(11 * window) // ten windows past the reset: no stall hides it
	}
	end := win.start.Add(window)
	remaining := max(0, f.quota-win.used)
	if f.rising && win.used > 2 && ok {
		remaining = f.quota - win.used/2
	}
	if f.sharedRemaining {
		if f.shared == nil || !f.shared.start.Equal(win.start) {
			f.shared = &fakeWindow{start: win.start}
		}
		f.shared.used++
		remaining = max(0, min(remaining, f.quota-f.shared.used))
	}
	var globalLeft int
	if f.global > 0 {
		globalLeft = f.global - f.globalWin.used
	}
	f.mu.Unlock()
	if f.global > 0 {
		pk := base64.StdEncoding.EncodeToString([]byte(tenant))
		t, w2 := int(math.Ceil(time.Until(end).Seconds())), int(window.Seconds())
		w.Header().Set("RateLimit-Policy", fmt.Sprintf(`"tenant";q=%d;w=%d;pk=:%s:, "global";q=%d;w=%d`, f.quota, w2, pk, f.global, w2))
		w.Header().Set("RateLimit", fmt.Sprintf(`"tenant";r=%d;t=%d;pk=:%s:, "global";r=%d;t=%d`, remaining, t, pk, globalLeft, t))
	} else if !f.silent {
		w.Header().Set("X-RateLimit-Limit", strconv.Itoa(f.quota))
		w.Header().Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(end.Unix(), 10))
	}
	if !ok {
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(time.Until(end).Seconds()+0.999))))
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, "rate limit exceeded")
	}
	return ok
}

// admitSliding is admit for a sliding-window estimate (httprate's calculateRate).
func (f *limiterFake) admitSliding(w http.ResponseWriter, tenant string, window time.Duration) bool {
	f.mu.Lock()
	now := time.Now()
	// Windows are aligned to the tenant's first request, not to the wall
	// clock as httprate's are, so an exhaustion never straddles a boundary
	// and the window after it always weighs the whole spent quota.
	origin, seen := f.origins[tenant]
	if !seen {
		origin, f.origins[tenant] = now, now
	}
	start := origin.Add(now.Sub(origin).Truncate(window))
	win := f.windows[tenant]
	switch {
	case win == nil || start.Sub(win.start) > window:
		win = &fakeWindow{start: start}
	case start.After(win.start):
		win = &fakeWindow{start: start, prev: win.used}
	}
	f.windows[tenant] = win
	rate := float64(win.prev)*(1-float64(now.Sub(start))/float64(window)) + float64(win.used)
	ok := rate < float64(f.quota)
	if ok {
		win.used++
		rate++
	}
	f.mu.Unlock()
	w.Header().Set("X-RateLimit-Limit", strconv.Itoa(f.quota))
	w.Header().Set("X-RateLimit-Remaining", strconv.Itoa(max(0, f.quota-int(math.Round(rate)))))
	// Epoch milliseconds, since these windows do not start on a second.
	w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(start.Add(window).UnixMilli(), 10))
	if !ok {
		w.Header().Set("Retry-After", strconv.Itoa(int(window.Seconds())))
		w.WriteHeader(http.StatusTooManyRequests)
	}
	return ok
}

// charge makes the effectful call, slowly enough for copies to overlap.
func (f *limiterFake) charge(key string) bool {
	req, _ := http.NewRequest(http.MethodPost, f.dep+"/charges", bytes.NewReader([]byte(`{}`)))
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	if !f.quick {
		time.Sleep(50 * time.Millisecond)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode < 300
}

// limiterFakeHarness starts front proxy → fake → dependency proxy on
// loopback, with the payments operation declared rate limited.
func limiterFakeHarness(t *testing.T, f *limiterFake) *check.Harness {
	t.Helper()
	f.windows, f.keys, f.origins = map[string]*fakeWindow{}, map[string]*fakeKey{}, map[string]time.Time{}
	st := checktest.Start(t, f, &f.dep)
	frontURL, front, dep, j := st.URL, st.Front, st.Dependency, st.Journal
	op := check.Operation{Method: http.MethodPost, Path: "/v1/payments", EffectMethod: http.MethodPost, EffectPath: "/charges",
		Render: func(v check.Values, _ bool) ([]byte, error) { return fmt.Appendf(nil, `{"amount":%d}`, v.Amount), nil }}
	return &check.Harness{
		TargetURL: frontURL, Front: front, Dependency: dep, Journal: j, Seed: 1, Operation: op,
		Policy: check.Policy{RateLimited: []check.Operation{op}},
	}
}
