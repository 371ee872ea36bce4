package payments

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
	"github.com/resilcheck/resilcheck/internal/reference/store"
)

// Server is the payments service, an http.Handler serving the HTTP API and,
// to HTTP/2 gRPC calls, its gRPC face (payments.proto). It is safe for
// concurrent use. Close waits for processor calls that outlive their
// request (only the work-after-deadline defect leaves any).
type Server struct {
	cfg    config
	mux    *http.ServeMux
	grpc   *grpcFace
	store  store.Store
	caller *caller
	rng    *lockedRand
	log    *slog.Logger
	bg     sync.WaitGroup
	sender *sender // nil when the service sends no webhooks
	// consumer is nil when the service consumes no queue.
	consumer *consumer
	// publisher is nil when the service publishes no events.
	publisher *publisher
	// pending are the webhook effects the answer-first defect has yet to
	// record (a timer each: true while it still owes its effect).
	pendingMu sync.Mutex
	pending   map[*time.Timer]bool
}

var _ http.Handler = (*Server)(nil)

// New returns a Server. WithStore and WithProcessorURL are required.
func New(opts ...Option) (*Server, error) {
	c := config{keyTTL: DefaultKeyTTL, maxBudget: DefaultMaxBudget}
	for _, o := range opts {
		o(&c)
	}
	if c.store == nil {
		return nil, errors.New("payments: WithStore is required")
	}
	if u, err := url.Parse(c.processorURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("payments: processor URL %q: want http(s)://host[:port]", c.processorURL)
	}
	if c.keyTTL <= 0 || c.maxBudget <= 0 || c.lease < 0 {
		return nil, errors.New("payments: key TTL and max budget must be positive and the lease non-negative")
	}
	if c.lease == 0 {
		c.lease = c.maxBudget + leaseMargin
	}
	c.retry = c.retry.withDefaults()
	if c.client == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 64
		c.client = &http.Client{Transport: tr}
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if !c.seeded {
		var b [8]byte
		_, _ = rand.Read(b[:])
		c.seed = binary.LittleEndian.Uint64(b[:])
	}
	s := &Server{cfg: c, store: c.store, rng: newLockedRand(c.seed), log: c.log}
	var err error
	if s.caller, err = newCaller(&c, s.rng); err != nil {
		return nil, err
	}
	if c.sender.URL != "" {
		s.sender = newSender(c.sender, c.defects, c.client, s.rng)
	}
	if s.grpc, err = newGRPCFace(s); err != nil {
		return nil, err
	}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("POST /v1/payments", s.handleCreate)
	s.mux.HandleFunc("GET /v1/payments/{id}", s.handleGet)
	if len(c.webhookKey) > 0 {
		s.mux.HandleFunc("POST /v1/webhooks", s.handleWebhook)
		s.mux.HandleFunc("GET /v1/webhooks/events/{id}/effects", s.handleWebhookEffects)
		s.mux.HandleFunc("GET /v1/webhooks/objects/{id}", s.handleWebhookObject)
	}
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeRaw(w, http.StatusOK, []byte(`{"status":"ok"}`))
	})
	if c.outbox.URL != "" {
		s.publisher = &publisher{s: s, cfg: c.outbox.withDefaults(), wake: make(chan struct{}, 1)}
		if err := s.publisher.start(); err != nil {
			return nil, err
		}
	}
	if c.consumer.URL != "" {
		s.consumer = &consumer{s: s, cfg: c.consumer.withDefaults()}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.consumer.start(ctx); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Crash loses what the service holds only in memory, as a crash would:
// the effects of webhooks it answered but has not recorded yet, the
// publisher's connection with what its reconnect buffer held, and the
// queue consumer's message in hand (its connection cut, so no ack leaves);
// the publisher and the consumer start again. What a real crash would also skip, the store
// writes after an interrupted charge, still happen: they release the
// claim, which a crash's lease expiry would do later. The store, a disk,
// survives.
func (s *Server) Crash(ctx context.Context) error {
	s.dropPending()
	if s.publisher != nil {
		s.publisher.stop()
		if err := s.publisher.start(); err != nil {
			return err
		}
	}
	if s.consumer == nil {
		return nil
	}
	s.consumer.stop()
	return s.consumer.start(ctx)
}

// ServeHTTP serves the payments API: a gRPC call to the gRPC face, any
// other request to the HTTP API. Only a server that speaks h2c (or HTTP/2
// over TLS) receives gRPC calls.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if isGRPC(r) {
		s.grpc.server.ServeHTTP(w, r)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// Close waits for background processor calls to finish. It does not close
// the store, which the caller owns.
func (s *Server) Close() error {
	if s.consumer != nil {
		s.consumer.stop()
	}
	if s.publisher != nil {
		s.publisher.stop()
	}
	s.dropPending()
	s.grpc.server.Stop()
	s.bg.Wait()
	if s.sender != nil {
		s.sender.close() // pending retries are dropped: the sender keeps no outbox
	}
	return nil
}

// Defects returns the enabled defects' names, sorted.
func (s *Server) Defects() []string { return s.cfg.defects.Names() }

func tenantOf(r *http.Request) string { return tenantOr(r.Header.Get("X-Tenant-ID")) }

// tenantOr is the tenant a request names, or the public one when it names none.
func tenantOr(t string) string {
	if t != "" {
		return t
	}
	return "public"
}

// paymentView is the JSON of a payment, as created and as read back.
type paymentView struct {
	ID       string `json:"id"`
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
	Status   string `json:"status"`
	ChargeID string `json:"charge_id,omitempty"`
}

func (s *Server) handleGet(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.maxBudget)
	defer cancel()
	p, err := s.store.Payment(ctx, tenantOf(r), r.PathValue("id"))
	switch {
	case errors.Is(err, store.ErrNotFound):
		writeProblem(w, http.StatusNotFound, probNotFound, "Payment not found",
			"no payment with this id exists for this tenant")
		return
	case err != nil:
		s.log.Warn("payments: read payment", "err", err)
		writeRetryable(w, http.StatusServiceUnavailable, time.Second, probStore, "Store unavailable",
			"the payment store did not answer; retry later")
		return
	}
	b, _ := json.Marshal(paymentView{ID: p.ID, Amount: p.Amount, Currency: p.Currency, Status: p.Status, ChargeID: p.ChargeID})
	writeRaw(w, http.StatusOK, b)
}

// lookupTenant is the record scope for tenant: the tenant itself, or one
// shared scope under cross-tenant-keys.
func (s *Server) recordTenant(tenant string) string {
	if s.cfg.defects.Has(defect.CrossTenantKeys) {
		return sharedTenant
	}
	return tenant
}

// sharedTenant is the one record scope the cross-tenant-keys defect uses.
const sharedTenant = "*"
