package gateway

import (
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/resilcheck/resilcheck/headers"
	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

// ErrInvalidOption is wrapped by New's errors for a bad or missing option.
var ErrInvalidOption = errors.New("gateway: invalid option")

// Gateway is the stack's edge, an http.Handler. It is safe for concurrent use.
type Gateway struct {
	cfg     config
	service *url.URL
	limits  *limiter
	shared  *limiter      // one bucket for every tenant: the shared-ratelimit-remaining defect's
	slots   chan struct{} // in-flight requests to the service
	client  *http.Client
	owned   bool // client was built here, so Close releases it
	log     *slog.Logger

	rngMu sync.Mutex
	rng   *rand.Rand
}

var _ http.Handler = (*Gateway)(nil)

// New builds a Gateway from opts, or returns an error wrapping
// ErrInvalidOption naming the offending option.
func New(opts ...Option) (*Gateway, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	svc, err := validate(cfg)
	if err != nil {
		return nil, err
	}
	g := &Gateway{cfg: cfg, service: svc, client: cfg.client, log: cfg.logger,
		limits: newLimiter(newQuota(cfg.ratePerSecond, cfg.burst), cfg.maxTenants),
		shared: newLimiter(newQuota(cfg.ratePerSecond, cfg.burst), 1),
		slots:  make(chan struct{}, cfg.maxConcurrent),
		rng:    rand.New(rand.NewPCG(cfg.seed, cfg.seed^0x9e3779b97f4a7c15))}
	if g.client == nil {
		g.owned = true
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = cfg.maxConcurrent // keep every slot's connection warm
		g.client = &http.Client{
			Transport:     tr,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	return g, nil
}

func validate(cfg config) (*url.URL, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrInvalidOption}, a...)...)
	}
	u, err := url.Parse(cfg.serviceURL)
	switch {
	case cfg.serviceURL == "":
		return nil, bad("WithServiceURL is required")
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return nil, bad("service URL %q is not an absolute http(s) URL", cfg.serviceURL)
	case !(cfg.ratePerSecond > 0) || cfg.burst < 1 || cfg.ratePerSecond > float64(cfg.burst):
		return nil, bad("rate limit %g/s burst %d: want 0 < rate <= burst, burst >= 1", cfg.ratePerSecond, cfg.burst)
	case cfg.maxConcurrent < 1:
		return nil, bad("max concurrent %d: want >= 1", cfg.maxConcurrent)
	case cfg.maxBudget <= 0:
		return nil, bad("max budget %s: want > 0", cfg.maxBudget)
	case cfg.maxTenants < 1:
		return nil, bad("max tenants %d: want >= 1", cfg.maxTenants)
	case cfg.maxBodyBytes < 1:
		return nil, bad("max body bytes %d: want >= 1", cfg.maxBodyBytes)
	case cfg.clock == nil:
		return nil, bad("nil clock")
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return u, nil
}

// Close releases idle connections of the gateway's own HTTP client. It does
// not wait for in-flight requests (the http.Server owns those).
func (g *Gateway) Close() error {
	if g.owned {
		g.client.CloseIdleConnections()
	}
	return nil
}

// ServeHTTP charges the request to its tenant's rate limit, then routes it.
// Every response carries the rate-limit fields.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now() // the budget is counted from arrival
	tenant, tenantOK := tenantOf(r)
	now := g.cfg.clock()
	d := g.limits.take(tenant, now)
	if !g.cfg.defects.Has(defect.NoRateLimitHeaders) {
		setRateLimitHeaders(w.Header(), g.limits.quota, d, g.advertised(d.remaining, now))
	}
	if !d.allowed {
		g.setRetryAfter(w.Header(), d.untilReset())
		p := Problem{Type: ProblemQuotaExceeded, Title: "Too Many Requests", Status: http.StatusTooManyRequests,
			Detail:           fmt.Sprintf("tenant quota of %d requests per %s is used up", g.limits.quota.q, g.limits.quota.window),
			ViolatedPolicies: []string{policyName}}
		writeProblem(w, p)
		return
	}
	if !tenantOK {
		writeProblem(w, problem(http.StatusBadRequest, probBadTenant, "Invalid tenant",
			"X-Tenant-ID must be 1-128 visible ASCII characters"))
		return
	}
	g.route(w, r, tenant, start)
}

func (g *Gateway) route(w http.ResponseWriter, r *http.Request, tenant string, start time.Time) {
	path := r.URL.EscapedPath()
	switch {
	case path == "/healthz":
		g.allow(w, r, "GET, HEAD", g.health)
	case path == "/v1/payments" || path == "/v1/webhooks":
		g.allow(w, r, "POST", func(w http.ResponseWriter, r *http.Request) { g.proxy(w, r, tenant, path, start) })
	case isPaymentPath(path):
		g.allow(w, r, "GET", func(w http.ResponseWriter, r *http.Request) { g.proxy(w, r, tenant, path, start) })
	default:
		writeProblem(w, problem(http.StatusNotFound, probNotFound, "Not Found",
			"the gateway serves POST /v1/payments, GET /v1/payments/{id}, POST /v1/webhooks and GET /healthz"))
	}
}

// allow runs h when r's method is in methods, else answers 405.
func (g *Gateway) allow(w http.ResponseWriter, r *http.Request, methods string, h http.HandlerFunc) {
	for m := range strings.SplitSeq(methods, ", ") {
		if r.Method == m {
			h(w, r)
			return
		}
	}
	w.Header().Set("Allow", methods)
	writeProblem(w, problem(http.StatusMethodNotAllowed, probMethodNotAllowed, "Method Not Allowed",
		"this route accepts "+methods))
}

func (g *Gateway) health(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"status":"ok"}`))
}

func isPaymentPath(p string) bool {
	id, ok := strings.CutPrefix(p, "/v1/payments/")
	return ok && id != "" && !strings.Contains(id, "/")
}

// tenantOf returns the caller's tenant (default "public") and whether it is
// acceptable; a bad one is charged to a shared bucket keyed "".
func tenantOf(r *http.Request) (string, bool) {
	t := r.Header.Get("X-Tenant-ID")
	if t == "" {
		return "public", true
	}
	if len(t) > 128 {
		return "", false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < 0x21 || t[i] > 0x7e {
			return "", false
		}
	}
	return t, true
}

// advertised is the remaining count the headers show: the truth, unless the
// lying-ratelimit-remaining defect inflates it to at least half the quota,
// or the shared-ratelimit-remaining defect shows the lesser of it and what
// is left in one bucket every tenant's requests are charged to (with one
// tenant at a time the two agree).
func (g *Gateway) advertised(remaining int64, now time.Time) int64 {
	switch {
	case g.cfg.defects.Has(defect.LyingRateLimitRemaining):
		return max(remaining, (g.limits.quota.q+1)/2)
	case g.cfg.defects.Has(defect.SharedRateLimitRemaining):
		return min(remaining, g.shared.take("", now).remaining)
	}
	return remaining
}

// setRetryAfter sets Retry-After on a 429 or 503 the gateway answers, as the
// retry-after defects dictate.
func (g *Gateway) setRetryAfter(h http.Header, d time.Duration) {
	switch {
	case g.cfg.defects.Has(defect.NoRetryAfterHeader):
		h.Del("Retry-After")
	case g.cfg.defects.Has(defect.BadRetryAfter):
		h.Set("Retry-After", "1.5s")
	default:
		h.Set("Retry-After", headers.FormatRetryAfter(d))
	}
}
