package gateway

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

// Defaults applied by New when the matching option is not given.
const (
	DefaultRatePerSecond = 50.0
	DefaultBurst         = 50
	DefaultMaxConcurrent = 64
	DefaultMaxBudget     = 10 * time.Second
	DefaultMaxTenants    = 10000
	DefaultMaxBodyBytes  = 64 << 10
)

// Option configures a Gateway; options are applied in order by New, which
// validates the result.
type Option func(*config)

type config struct {
	serviceURL    string
	ratePerSecond float64
	burst         int
	maxConcurrent int
	maxBudget     time.Duration
	maxTenants    int
	maxBodyBytes  int64
	seed          uint64
	defects       defect.Set
	client        *http.Client
	logger        *slog.Logger
	clock         func() time.Time
}

func defaultConfig() config {
	return config{
		ratePerSecond: DefaultRatePerSecond,
		burst:         DefaultBurst,
		maxConcurrent: DefaultMaxConcurrent,
		maxBudget:     DefaultMaxBudget,
		maxTenants:    DefaultMaxTenants,
		maxBodyBytes:  DefaultMaxBodyBytes,
		clock:         time.Now,
	}
}

// WithServiceURL sets the payments service's base URL (absolute http or
// https). Required.
func WithServiceURL(u string) Option { return func(c *config) { c.serviceURL = u } }

// WithRateLimit sets each tenant's token bucket: perSecond tokens are
// credited per second (in whole-second steps) up to burst. perSecond must be
// positive and not above burst; default 50/s, burst 50.
func WithRateLimit(perSecond float64, burst int) Option {
	return func(c *config) { c.ratePerSecond, c.burst = perSecond, burst }
}

// WithMaxConcurrent sets how many requests may be in flight to the service
// at once; the rest are shed with 503. Default 64; must be at least 1.
func WithMaxConcurrent(n int) Option { return func(c *config) { c.maxConcurrent = n } }

// WithMaxBudget sets the deadline applied when the caller sends none, and
// the cap on any budget the caller sends. Default 10 s; must be positive.
func WithMaxBudget(d time.Duration) Option { return func(c *config) { c.maxBudget = d } }

// WithMaxTenants bounds how many tenant buckets are kept in memory. Full
// (idle) buckets are evicted first, as dropping them changes nothing.
// Default 10000; must be at least 1.
func WithMaxTenants(n int) Option { return func(c *config) { c.maxTenants = n } }

// WithMaxBodyBytes caps request bodies; larger ones get 413. Default 64 KiB.
func WithMaxBodyBytes(n int64) Option { return func(c *config) { c.maxBodyBytes = n } }

// WithSeed seeds the gateway's only source of randomness (retry jitter under
// the retry-every-tier defect). Default 0.
func WithSeed(seed uint64) Option { return func(c *config) { c.seed = seed } }

// WithDefects enables defects; nil (the default) enables none. The set must
// not be modified afterwards.
func WithDefects(s defect.Set) Option { return func(c *config) { c.defects = s } }

// WithHTTPClient sets the client used to call the service; nil means a
// private client that does not follow redirects, closed by Close.
func WithHTTPClient(hc *http.Client) Option { return func(c *config) { c.client = hc } }

// WithLogger sets the logger; nil (the default) discards logs.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithClock sets the wall clock used for rate-limit arithmetic (tests).
// Deadlines always use the request context's real clock. Default time.Now.
func WithClock(now func() time.Time) Option { return func(c *config) { c.clock = now } }
