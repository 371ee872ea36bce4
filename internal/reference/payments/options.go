package payments

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
	"github.com/resilcheck/resilcheck/internal/reference/store"
)

// Defaults of a Server.
const (
	DefaultKeyTTL    = 24 * time.Hour   // how long a key is remembered (Stripe's retention floor)
	DefaultMaxBudget = 10 * time.Second // the deadline when the caller sends none; larger budgets are clipped to it
	leaseMargin      = 5 * time.Second  // added to the max budget for the default lease
)

// RetryConfig tunes the processor call. The zero value of each field selects
// its default, shown in brackets.
type RetryConfig struct {
	MaxAttempts    int           // attempts per payment including the first [3]
	BaseDelay      time.Duration // backoff base: retry n waits uniform [0, min(MaxDelay, BaseDelay·2ⁿ)] [50ms]
	MaxDelay       time.Duration // backoff cap [1s]
	AttemptTimeout time.Duration // limit of one attempt, also clipped to the caller's deadline [3s]

	BudgetRatio          float64 // share of in-flight calls that may be retries [0.2]
	BudgetMinConcurrency uint    // retries always allowed in flight regardless of the ratio [3]

	BreakerFailures uint          // failures among the last BreakerWindow attempts that open the breaker [5]
	BreakerWindow   uint          // attempts the breaker looks at [10]
	BreakerDelay    time.Duration // time open before half-open [1s]

	Throttle ThrottleConfig // client-side throttling of the processor's refusals [ThrottleConfig's defaults]
}

func (c RetryConfig) withDefaults() RetryConfig {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 3
	}
	def(&c.BaseDelay, 50*time.Millisecond)
	def(&c.MaxDelay, time.Second)
	def(&c.AttemptTimeout, 3*time.Second)
	def(&c.BreakerDelay, time.Second)
	if c.BudgetRatio <= 0 {
		c.BudgetRatio = 0.2
	}
	if c.BudgetMinConcurrency == 0 {
		c.BudgetMinConcurrency = 3
	}
	if c.BreakerWindow == 0 {
		c.BreakerWindow = 10
	}
	if c.BreakerFailures == 0 {
		c.BreakerFailures = (c.BreakerWindow + 1) / 2
	}
	c.Throttle = c.Throttle.withDefaults()
	return c
}

// Option configures a Server.
type Option func(*config)

type config struct {
	store        store.Store
	processorURL string
	seed         uint64
	seeded       bool
	defects      defect.Set
	keyTTL       time.Duration
	lease        time.Duration
	maxBudget    time.Duration
	retry        RetryConfig
	hedge        HedgeConfig
	client       *http.Client
	log          *slog.Logger
	failpoint    func(step Step, tenant, key string) bool // see WithFailpoint
	webhookKey   []byte                                   // see WithWebhookKey
	sender       SenderConfig                             // see WithWebhookSender
	consumer     ConsumerConfig                           // see WithConsumer
	outbox       OutboxConfig                             // see WithOutbox
}

// WithStore sets the idempotency and payment store (required). The Server
// does not close it.
func WithStore(s store.Store) Option { return func(c *config) { c.store = s } }

// WithProcessorURL sets the processor's base URL, e.g. "http://127.0.0.1:9000" (required).
func WithProcessorURL(u string) Option { return func(c *config) { c.processorURL = u } }

// WithSeed makes payment ids, lease owners and backoff jitter deterministic.
// Without it the seed is random. Processes sharing one store must use
// different seeds, or their payment ids collide.
func WithSeed(seed uint64) Option { return func(c *config) { c.seed, c.seeded = seed, true } }

// WithDefects enables defects (nil: none).
func WithDefects(s defect.Set) Option { return func(c *config) { c.defects = s } }

// WithKeyTTL sets how long a key is remembered after its first use [24h].
func WithKeyTTL(d time.Duration) Option { return func(c *config) { c.keyTTL = d } }

// WithLease sets how long an in-progress claim is held before a retry may
// take it over [max budget + 5s]. Shorter than a request's budget is safe
// (the processor dedupes the takeover) but produces more takeovers.
func WithLease(d time.Duration) Option { return func(c *config) { c.lease = d } }

// WithMaxBudget sets the deadline used when the caller sends none and the
// largest budget honoured [10s].
func WithMaxBudget(d time.Duration) Option { return func(c *config) { c.maxBudget = d } }

// WithRetry tunes the processor call's retries, budget and breaker.
func WithRetry(r RetryConfig) Option { return func(c *config) { c.retry = r } }

// WithHedging tunes hedging of the processor call.
func WithHedging(h HedgeConfig) Option { return func(c *config) { c.hedge = h } }

// WithHTTPClient sets the client for processor calls [a fresh http.Client
// with no overall timeout: deadlines come from the request context].
func WithHTTPClient(h *http.Client) Option { return func(c *config) { c.client = h } }

// WithWebhookKey serves POST /v1/webhooks, verifying deliveries with key
// (the decoded bytes of a Standard Webhooks whsec_ secret); without it the
// service receives no webhooks.
func WithWebhookKey(key []byte) Option { return func(c *config) { c.webhookKey = key } }

// WithWebhookSender delivers a signed payment.succeeded event to
// cfg.URL for every payment that succeeds; without it the service sends
// no webhooks.
func WithWebhookSender(cfg SenderConfig) Option { return func(c *config) { c.sender = cfg } }

// WithOutbox makes the service publish each succeeded payment's event to
// a NATS JetStream broker through its outbox (see OutboxConfig); New
// connects, retrying in the background while the broker is down.
func WithOutbox(cfg OutboxConfig) Option { return func(c *config) { c.outbox = cfg } }

// WithConsumer makes the service consume payment requests from the NATS
// JetStream durable consumer cfg names (see ConsumerConfig); New connects.
func WithConsumer(cfg ConsumerConfig) Option { return func(c *config) { c.consumer = cfg } }

// WithLogger sets the logger; nil (the default) discards.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.log = l } }
