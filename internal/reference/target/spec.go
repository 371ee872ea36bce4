package target

import (
	"reflect"
	"slices"
	"time"

	"github.com/resilcheck/resilcheck/targets"
)

// The reference stack's own spec. These values are what its code does
// (internal/reference/payments, internal/reference/gateway), declared the way any service
// declares itself; the harness judges the stack by them as it judges any
// target by its spec.
const (
	// Name names the stack in reports.
	Name = "reference payments stack"
	// Processor is the one dependency the stack calls, and starts itself.
	Processor = "processor"
	// MaxBudget is the deadline the gateway and service apply when a caller
	// sends none; short, so the deadline checks finish quickly.
	MaxBudget = 2 * time.Second
	// GatewayTier and ServiceTier name the stack's two tiers: the gateway
	// answers at service.url and calls the service through a hop proxy.
	GatewayTier = "gateway"
	ServiceTier = "service"
	// operation names the stack's one effectful operation.
	operation = "create-payment"
	// WebhookSecret is the secret the stack's webhook receiver verifies
	// deliveries with unless the spec names another: a fixed, public test
	// value (whsec_ and the base64 of 32 bytes), not a credential.
	WebhookSecret = "whsec_cmVzaWxjaGVjay1yZWZlcmVuY2Utd2ViaG9va3MhISE="
	// defaultStore is an SQLite file in a temporary directory.
	defaultStore = "sqlite"
	// Copies is how many copies of the stack a run starts when the spec
	// leaves concurrency unset and each copy gets its own store: its checks
	// mostly wait, so twelve copies, five at a time for each property's
	// workers, take the run on 2 cores from about 77 s to 16–18 s with the
	// same verdicts and up to five times the properties' cases. Two
	// properties hold ten; the other two run the longest checks (TH-01,
	// TH-02) meanwhile, which on eight copies waited for the properties
	// (21–23 s).
	Copies = 12
)

// Defaults fills the zero fields of a kind-reference spec with the stack's
// own: what a user would write to describe it. It assigns fields only, so it
// is idempotent and leaves t's slices alone.
func Defaults(t *targets.Target) {
	if t.Name == "" {
		t.Name = Name
	}
	if t.Reference.Store == "" {
		t.Reference.Store = defaultStore
	}
	if t.Concurrency == 0 && t.Reference.Store == defaultStore {
		t.Concurrency = Copies
	}
	if grpcFace(t) {
		defaultGRPCFace(t)
	}
	if len(t.Operations) == 0 {
		t.Operations = []targets.Operation{{
			Name:        operation,
			Method:      "POST",
			Path:        "/v1/payments",
			Body:        `{"amount": {{.Amount}}, "currency": "EUR"}`,
			AltBody:     `{"amount": {{.Amount}}, "currency": "USD"}`,
			KeyHeader:   "Idempotency-Key",
			ContentType: "application/json",
			Success:     []int{201}, // a new payment and its replays
		}}
	}
	if len(t.Dependencies) == 0 {
		t.Dependencies = []targets.Dependency{{Name: Processor, Method: "POST", Path: "/charges"}}
	}
	if len(t.Tiers) == 0 && !grpcFace(t) {
		t.Tiers = []targets.Tier{{Name: GatewayTier}, {Name: ServiceTier}}
	}
	if reflect.ValueOf(t.Effects).IsZero() {
		// The service forwards the payment id as the processor's key.
		t.Effects.Ledger = targets.Ledger{Dependency: Processor, KeyHeader: "Idempotency-Key"}
	}
	if t.Tenancy.Header == "" && !t.Tenancy.Disabled {
		t.Tenancy.Header = "X-Tenant-ID"
	}
	defaultConventions(&t.Conventions)
	defaultPolicy(&t.Policy, !grpcFace(t))
	if !grpcFace(t) {
		defaultWebhooks(&t.Webhooks)
	}
	defaultWebhookSender(t)
	defaultQueueConsumer(&t.QueueConsumer)
}

// defaultQueueConsumer declares the rest of the service's queue consumer
// (internal/reference/payments/consumer.go) once the spec names its
// subject: payment requests, each a POST /v1/payments body keyed by its
// Nats-Msg-Id, charged through the processor the ledger counts; a body it
// cannot parse is dead-lettered to payments.dead at its third delivery.
// Without a subject the stack consumes nothing, so a certification of the
// other suites is not shaken by the crashes and redeliveries of this one
// (an outbox, likewise, is the spec's to name: outbox.subject).
func defaultQueueConsumer(q *targets.QueueConsumer) {
	if q.Subject == "" {
		return
	}
	if q.Stream == "" {
		q.Stream = "PAYMENTS"
	}
	if q.Consumer == "" {
		q.Consumer = "payments"
	}
	if q.AckWait == 0 {
		q.AckWait = time.Second
	}
	if q.MaxDeliver == 0 {
		q.MaxDeliver = 3 // payments.ConsumerConfig's
	}
	if q.DeadLetter == "" {
		q.DeadLetter = "payments.dead"
	}
	if q.Body == "" {
		q.Body = `{"amount": {{.Amount}}, "currency": "EUR"}`
	}
}

// defaultWebhookSender declares the service's webhook sender
// (internal/reference/payments/sender.go) once the spec names its endpoint:
// the dependency it delivers to, a payment.succeeded event per payment
// created, and payments.SenderConfig's retry policy: 4 attempts, each
// retry at least 200 ms, 400 ms, then 800 ms after the last (jitter adds
// as much again at most), each attempt abandoned after 1 s. Without an
// endpoint the stack sends no webhooks, so a certification of the other
// suites is not slowed by deliveries.
func defaultWebhookSender(t *targets.Target) {
	w := &t.WebhookSender
	if !w.Declared() {
		return
	}
	if !slices.ContainsFunc(t.Dependencies, func(d targets.Dependency) bool { return d.Name == w.Endpoint }) {
		t.Dependencies = append(slices.Clip(t.Dependencies), targets.Dependency{Name: w.Endpoint})
	}
	if w.Trigger == "" {
		w.Trigger = operation
	}
	if w.Scheme == "" {
		w.Scheme = targets.SchemeStandard
	}
	if w.Secret == "" && w.SecretEnv == "" {
		w.Secret = WebhookSecret
	}
	if w.MaxAttempts == 0 {
		w.MaxAttempts = 4
	}
	if len(w.Backoff) == 0 {
		w.Backoff = []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond} // payments.SenderConfig's
	}
	if w.AttemptTimeout == 0 {
		w.AttemptTimeout = time.Second // payments.SenderConfig's
	}
}

// defaultWebhooks declares the service's webhook receiver
// (internal/reference/payments/webhook.go): Standard Webhooks deliveries at
// /v1/webhooks, each event's effects counted by the service's own probe.
func defaultWebhooks(w *targets.Webhooks) {
	if w.Path == "" {
		w.Path = "/v1/webhooks"
	}
	if w.Scheme == "" {
		w.Scheme = targets.SchemeStandard
	}
	if w.Secret == "" && w.SecretEnv == "" {
		w.Secret = WebhookSecret
	}
	if reflect.ValueOf(w.Effects).IsZero() {
		w.Effects.Probe = targets.Probe{Method: "GET", URL: "/v1/webhooks/events/{{.Key}}/effects", Count: "$.count"}
	}
	if reflect.ValueOf(w.Ordering).IsZero() {
		w.Ordering = targets.WebhookOrdering{
			Earlier: `{"type":"payment.updated","data":{"id":"{{.Key}}","status":"processing","created":1795000000}}`,
			Later:   `{"type":"payment.updated","data":{"id":"{{.Key}}","status":"succeeded","created":1795000060}}`,
			State:   targets.StateProbe{Method: "GET", URL: "/v1/webhooks/objects/{{.Key}}", Value: "$.status"},
		}
	}
}

func defaultConventions(c *targets.Conventions) {
	if c.Profile == "" {
		c.Profile = targets.ProfileIETF // 400 missing or malformed key, 409 in flight, 422 mismatch
	}
	if c.KeyFormat == "" {
		c.KeyFormat = targets.KeyToken // it accepts sf-strings too
	}
	if c.DeadlineHeader == "" {
		c.DeadlineHeader = targets.DeadlineRequestTimeoutMs // what it forwards
	}
	if c.KeyTTL == 0 {
		c.KeyTTL = 24 * time.Hour // payments.DefaultKeyTTL
	}
	if c.MaxBudget == 0 {
		c.MaxBudget = MaxBudget
	}
}

// defaultPolicy declares the stack's resilience policy, section by section;
// the gateway's rate limits only when it stands in front (gateway).
func defaultPolicy(p *targets.Policy, gateway bool) {
	if p.Retry == (targets.RetryPolicy{}) {
		// payments.RetryConfig's defaults: 3 attempts, full jitter over
		// 50 ms·2ⁿ capped at 1 s, retries at most 20 % of calls in flight,
		// and a breaker open for 1 s; a half-open probe and the request
		// after it fit in the next half second.
		p.Retry = targets.RetryPolicy{
			MaxAttempts: 3, Backoff: targets.BackoffFull, Base: 50 * time.Millisecond, Cap: time.Second,
			BudgetRatio: 0.2, BreakerRecovery: 1500 * time.Millisecond,
		}
	}
	if len(p.Deadlines.Headers) == 0 {
		// Gateway and service read all four (headers.Timeout), and forward
		// X-Request-Timeout-Ms.
		p.Deadlines.Headers = []string{targets.DeadlineRequestTimeoutMs, targets.DeadlineGRPCTimeout,
			targets.DeadlineEnvoyUpstream, targets.DeadlineEnvoyExpected}
	}
	if gateway {
		defaultRateLimits(&p.RateLimits)
	}
	if len(p.Idempotency.Operations) == 0 {
		p.Idempotency.Operations = []string{operation}
	}
	if !p.Hedging.Declared() {
		// payments.HedgeConfig's defaults: a charge outstanding for 300 ms
		// gets one more copy with the same key, while hedges in flight stay
		// within 20 % of the charges in flight.
		p.Hedging = targets.HedgingPolicy{Delay: 300 * time.Millisecond, MaxCopies: 2, Budget: 0.2}
	}
	if !p.Throttling.Declared() {
		// payments.ThrottleConfig's defaults: failsafe-go's adaptive
		// throttler with failure-rate threshold 0.5 (K = 1/(1 − 0.5) = 2)
		// and its default cap of 90 % rejected. Its history is 2 s, so
		// every refusal has aged out of it 2 s after the processor heals;
		// failsafe-go ages it when the calls let through (at least 10 %)
		// record, within half a second at the 20 calls/s and more the
		// stack serves under load.
		p.Throttling = targets.ThrottlingPolicy{K: 2, MaxRejection: 0.9, Recovery: 2500 * time.Millisecond}
	}
}

// defaultRateLimits declares the gateway's limiter, which the gRPC face's
// path does not pass.
func defaultRateLimits(r *targets.RateLimitPolicy) {
	if len(r.Operations) == 0 && r.Probe == "" {
		// The gateway charges every request to its tenant's bucket before
		// routing it, /healthz included.
		*r = targets.RateLimitPolicy{Operations: []string{operation}, Probe: "/healthz"}
	}
	if r.Headers == "" {
		// The gateway sends RateLimit and RateLimit-Policy (and X-RateLimit-*)
		// on every response it routes (internal/reference/gateway).
		r.Headers = targets.RateLimitDraft10
	}
}
