package reference

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
	"github.com/resilcheck/resilcheck/internal/reference/gateway"
	"github.com/resilcheck/resilcheck/internal/reference/payments"
	"github.com/resilcheck/resilcheck/internal/reference/processor"
	"github.com/resilcheck/resilcheck/internal/reference/store"
)

// Stack is a running reference stack. Its URLs are set by Start; Close stops
// every component and releases the store.
type Stack struct {
	GatewayURL   string
	ServiceURL   string // the HTTP API, and over h2c the gRPC face
	ProcessorURL string
	// Processor is the in-process processor, whose ledger counts real charges.
	Processor *processor.Processor

	service *payments.Server
	servers []*http.Server
	closers []func() error
	tmpDir  string
}

// Option configures Start.
type Option func(*config)

type config struct {
	gatewayAddr string
	serviceAddr string
	storeURL    string
	defects     defect.Set
	seed        uint64
	seeded      bool
	rate        float64
	burst       int
	maxBudget   time.Duration
	depFront    func(processorURL string) (string, error)
	svcFront    func(serviceURL string) (string, error)
	logger      *slog.Logger
	webhookKey  []byte
	sender      payments.SenderConfig
	consumer    payments.ConsumerConfig
	outbox      payments.OutboxConfig
}

// WithGatewayAddr sets the gateway's listen address (default 127.0.0.1:0;
// the other components always take free loopback ports).
func WithGatewayAddr(addr string) Option { return func(c *config) { c.gatewayAddr = addr } }

// WithServiceAddr sets the payments service's listen address (default
// 127.0.0.1:0): where its gRPC face is reached without the gateway.
func WithServiceAddr(addr string) Option { return func(c *config) { c.serviceAddr = addr } }

// WithWebhookKey has the service receive webhooks at POST /v1/webhooks,
// verified with key (the decoded whsec_ secret); nil: none.
func WithWebhookKey(key []byte) Option { return func(c *config) { c.webhookKey = key } }

// WithWebhookSender makes the service deliver a signed event to cfg.URL
// for every payment that succeeds (payments.WithWebhookSender).
func WithWebhookSender(cfg payments.SenderConfig) Option { return func(c *config) { c.sender = cfg } }

// WithConsumer makes the service consume payment requests from a NATS
// JetStream durable consumer (payments.WithConsumer).
func WithConsumer(cfg payments.ConsumerConfig) Option { return func(c *config) { c.consumer = cfg } }

// WithOutbox makes the service publish each succeeded payment's event
// through its outbox (payments.WithOutbox).
func WithOutbox(cfg payments.OutboxConfig) Option { return func(c *config) { c.outbox = cfg } }

// WithStore sets the payments store URL ("sqlite:PATH", "postgres://…");
// empty means an SQLite file in a temporary directory removed by Close.
func WithStore(url string) Option { return func(c *config) { c.storeURL = url } }

// WithDefects switches defects on.
func WithDefects(s defect.Set) Option { return func(c *config) { c.defects = s } }

// WithSeed makes every component's random choices derive from seed,
// payment ids included: never reuse a seed on a store that outlives the
// stack. Without it the service draws a random seed.
func WithSeed(seed uint64) Option { return func(c *config) { c.seed, c.seeded = seed, true } }

// WithRateLimit sets the gateway's per-tenant token bucket (default 50/s, burst 50).
func WithRateLimit(perSecond float64, burst int) Option {
	return func(c *config) { c.rate, c.burst = perSecond, burst }
}

// WithMaxBudget sets the deadline the gateway and service apply when a
// caller sends none (default 10 s).
func WithMaxBudget(d time.Duration) Option { return func(c *config) { c.maxBudget = d } }

// WithDependencyFront lets a harness stand between the service and the
// processor: f receives the processor's URL and returns the URL the service
// must call instead (resilcheck's dependency proxy).
func WithDependencyFront(f func(processorURL string) (string, error)) Option {
	return func(c *config) { c.depFront = f }
}

// WithServiceFront lets a harness stand between the gateway and the
// service: f receives the service's URL and returns the URL the gateway
// must call instead (resilcheck's hop proxy).
func WithServiceFront(f func(serviceURL string) (string, error)) Option {
	return func(c *config) { c.svcFront = f }
}

// WithLogger sets the components' logger; nil discards.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// Start starts processor, service and gateway, in that order, each on its
// own loopback listener, and returns when all three accept connections.
func Start(ctx context.Context, opts ...Option) (_ *Stack, err error) {
	c := config{gatewayAddr: "127.0.0.1:0", serviceAddr: "127.0.0.1:0", rate: 50, burst: 50}
	for _, o := range opts {
		o(&c)
	}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	st := &Stack{} // not the result, which a failed start sets to nil
	defer func() {
		if err != nil {
			_ = st.Close(context.Background())
		}
	}()

	proc, err := processor.New(processor.WithSeed(c.seed), processor.WithLogger(c.logger.With("component", "processor")))
	if err != nil {
		return nil, fmt.Errorf("reference: processor: %w", err)
	}
	st.Processor = proc
	if st.ProcessorURL, err = st.serve("127.0.0.1:0", proc); err != nil {
		return nil, err
	}

	storeURL := c.storeURL
	if storeURL == "" {
		if st.tmpDir, err = scratchDir(); err != nil {
			return nil, fmt.Errorf("reference: %w", err)
		}
		storeURL = "sqlite:" + filepath.Join(st.tmpDir, "payments.db")
	}
	db, err := store.Open(ctx, storeURL)
	if err != nil {
		return nil, fmt.Errorf("reference: store: %w", err)
	}
	st.closers = append(st.closers, db.Close)

	depURL := st.ProcessorURL
	if c.depFront != nil {
		if depURL, err = c.depFront(st.ProcessorURL); err != nil {
			return nil, fmt.Errorf("reference: dependency front: %w", err)
		}
	}
	svcOpts := []payments.Option{payments.WithStore(db), payments.WithProcessorURL(depURL),
		payments.WithDefects(c.defects), payments.WithLogger(c.logger.With("component", "service"))}
	if c.seeded {
		svcOpts = append(svcOpts, payments.WithSeed(c.seed))
	}
	if c.maxBudget > 0 {
		svcOpts = append(svcOpts, payments.WithMaxBudget(c.maxBudget))
	}
	if len(c.webhookKey) > 0 {
		svcOpts = append(svcOpts, payments.WithWebhookKey(c.webhookKey))
	}
	if c.sender.URL != "" {
		svcOpts = append(svcOpts, payments.WithWebhookSender(c.sender))
	}
	if c.consumer.URL != "" {
		svcOpts = append(svcOpts, payments.WithConsumer(c.consumer))
	}
	if c.outbox.URL != "" {
		svcOpts = append(svcOpts, payments.WithOutbox(c.outbox))
	}
	svc, err := payments.New(svcOpts...)
	if err != nil {
		return nil, fmt.Errorf("reference: service: %w", err)
	}
	st.service = svc
	st.closers = append(st.closers, svc.Close)
	// h2c besides HTTP/1.1: gRPC calls reach the service's gRPC face.
	if st.ServiceURL, err = st.serveH2C(c.serviceAddr, svc); err != nil {
		return nil, err
	}

	svcURL := st.ServiceURL
	if c.svcFront != nil {
		if svcURL, err = c.svcFront(st.ServiceURL); err != nil {
			return nil, fmt.Errorf("reference: service front: %w", err)
		}
	}
	gwOpts := []gateway.Option{gateway.WithServiceURL(svcURL), gateway.WithRateLimit(c.rate, c.burst),
		gateway.WithSeed(c.seed), gateway.WithDefects(c.defects),
		gateway.WithLogger(c.logger.With("component", "gateway"))}
	if c.maxBudget > 0 {
		gwOpts = append(gwOpts, gateway.WithMaxBudget(c.maxBudget))
	}
	gw, err := gateway.New(gwOpts...)
	if err != nil {
		return nil, fmt.Errorf("reference: gateway: %w", err)
	}
	st.closers = append(st.closers, gw.Close)
	if st.GatewayURL, err = st.serve(c.gatewayAddr, gw); err != nil {
		return nil, err
	}
	return st, nil
}

// Crash crashes the service's in-memory work and starts it again
// (payments.Server.Crash).
func (st *Stack) Crash(ctx context.Context) error { return st.service.Crash(ctx) }

// serve listens on addr and serves h over HTTP/1.1 until Close; it returns
// the base URL.
func (st *Stack) serve(addr string, h http.Handler) (string, error) {
	return st.listen(addr, &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second})
}

// serveH2C is serve speaking HTTP/2 with prior knowledge (h2c) too.
func (st *Stack) serveH2C(addr string, h http.Handler) (string, error) {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, Protocols: new(http.Protocols)}
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	return st.listen(addr, srv)
}

// listen serves srv on addr until Close; it returns the base URL.
func (st *Stack) listen(addr string, srv *http.Server) (string, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("reference: listen %s: %w", addr, err)
	}
	st.servers = append(st.servers, srv)
	go func() { _ = srv.Serve(l) }()
	return "http://" + l.Addr().String(), nil
}

// shutdownGrace bounds how long Close lets in-flight requests finish. A
// connection a client opened but sent nothing on counts as busy for 5 s
// to http.Server.Shutdown, and a proxy's spare connection is one: every
// copy of a certification waited about 3 s on one.
const shutdownGrace = 500 * time.Millisecond

// Close stops the gateway, service and processor, newest first, letting
// in-flight requests finish for shutdownGrace (or until ctx ends), then
// closes the store.
func (st *Stack) Close(ctx context.Context) error {
	var errs []error
	for i := len(st.servers) - 1; i >= 0; i-- {
		c, cancel := context.WithTimeout(ctx, shutdownGrace)
		if err := st.servers[i].Shutdown(c); err != nil {
			_ = st.servers[i].Close()
		}
		cancel()
	}
	st.servers = nil
	for i := len(st.closers) - 1; i >= 0; i-- {
		errs = append(errs, st.closers[i]())
	}
	st.closers = nil
	if st.tmpDir != "" {
		errs = append(errs, os.RemoveAll(st.tmpDir))
		st.tmpDir = ""
	}
	return errors.Join(errs...)
}

// scratchDir makes the directory of a stack's throwaway store, under
// scratchRoot, or os.TempDir when that cannot be written.
func scratchDir() (string, error) {
	if root := scratchRoot(); root != "" {
		if dir, err := os.MkdirTemp(root, "resilcheck-reference-*"); err == nil {
			return dir, nil
		}
	}
	return os.MkdirTemp("", "resilcheck-reference-*")
}
