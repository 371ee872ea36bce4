package processor

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

// DeclinedAmount is the amount the processor always declines with 402.
const DeclinedAmount = 402

const maxBody = 64 << 10

// Processor is an http.Handler serving the processor API. It keeps its ledger
// in memory and is safe for concurrent use.
type Processor struct {
	mux     *http.ServeMux
	log     *slog.Logger
	latency time.Duration

	rngMu sync.Mutex
	rng   *rand.Rand

	mu      sync.Mutex
	byKey   map[string]*entry // idempotency key → first answer
	charges int
	keyed   map[string]int // charges created under each key
	unkeyed int
	decline int
}

// entry is the stored first answer for one Idempotency-Key.
type entry struct {
	fingerprint string
	status      int
	body        []byte
}

var _ http.Handler = (*Processor)(nil)

// Option configures a Processor.
type Option func(*Processor)

// WithSeed makes charge ids deterministic: the same seed and the same request
// order give the same ids. The default seed is 0.
func WithSeed(seed uint64) Option {
	return func(p *Processor) { p.rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }
}

// WithLatency delays every charge answer by d after the charge is recorded,
// like a slow network on the way back: a caller that gives up meanwhile has
// still been charged. Zero (the default) answers at once.
func WithLatency(d time.Duration) Option { return func(p *Processor) { p.latency = d } }

// WithLogger sets the logger; nil (the default) discards.
func WithLogger(l *slog.Logger) Option { return func(p *Processor) { p.log = l } }

// WithDefects is accepted for symmetry with the other components; no defect
// currently applies to the processor, which is the trusted dependency.
func WithDefects(defect.Set) Option { return func(*Processor) {} }

// New returns a processor with an empty ledger.
func New(opts ...Option) (*Processor, error) {
	p := &Processor{
		byKey: map[string]*entry{},
		keyed: map[string]int{},
	}
	WithSeed(0)(p)
	for _, o := range opts {
		o(p)
	}
	if p.latency < 0 {
		return nil, fmt.Errorf("processor: negative latency %v", p.latency)
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	p.mux = http.NewServeMux()
	p.mux.HandleFunc("POST /charges", p.handleCharge)
	p.mux.HandleFunc("GET /ledger", p.handleLedger)
	p.mux.HandleFunc("POST /ledger/reset", p.handleReset)
	p.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	return p, nil
}

// ServeHTTP serves the processor API.
func (p *Processor) ServeHTTP(w http.ResponseWriter, r *http.Request) { p.mux.ServeHTTP(w, r) }

// chargeRequest is the body of POST /charges.
type chargeRequest struct {
	Amount    int64  `json:"amount"`
	Currency  string `json:"currency"`
	Reference string `json:"reference,omitempty"`
}

// Charge is the body of a successful POST /charges answer.
type Charge struct {
	ID        string `json:"id"`
	Amount    int64  `json:"amount"`
	Currency  string `json:"currency"`
	Reference string `json:"reference,omitempty"`
	Status    string `json:"status"`
}

func (p *Processor) handleCharge(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeProblem(w, http.StatusBadRequest, "invalid-request", "Invalid request", "the body could not be read")
		return
	}
	var req chargeRequest
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || req.Amount <= 0 || !validCurrency(req.Currency) {
		writeProblem(w, http.StatusBadRequest, "invalid-request", "Invalid request",
			`want {"amount": <integer > 0>, "currency": "<3 upper-case letters>", "reference": "<string>"}`)
		return
	}
	key := r.Header.Get("Idempotency-Key")
	fp := fingerprint(req)

	status, body, replayed, ok := p.charge(key, fp, req)
	if !ok {
		writeProblem(w, http.StatusUnprocessableEntity, "key-reused", "Idempotency-Key reused",
			"this Idempotency-Key was first used with a different payload")
		return
	}
	if replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	p.log.Debug("processor: charge", "key", key, "status", status, "replayed", replayed)
	if p.latency > 0 {
		t := time.NewTimer(p.latency)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return // the charge stands; only the answer is lost
		}
	}
	if status == http.StatusCreated {
		w.Header().Set("Content-Type", "application/json")
	} else {
		w.Header().Set("Content-Type", "application/problem+json")
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// charge records the charge for key (empty: unkeyed) and returns the answer
// to send. ok is false when key was first used with another fingerprint.
func (p *Processor) charge(key, fp string, req chargeRequest) (status int, body []byte, replayed, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if key != "" {
		if e, found := p.byKey[key]; found {
			if e.fingerprint != fp {
				return 0, nil, false, false
			}
			return e.status, e.body, true, true
		}
	}
	if req.Amount == DeclinedAmount {
		status = http.StatusPaymentRequired
		body = problemBody(status, "declined", "Card declined", "the issuer declined this charge")
		p.decline++
	} else {
		status = http.StatusCreated
		body, _ = json.Marshal(Charge{ID: p.newID(), Amount: req.Amount, Currency: req.Currency,
			Reference: req.Reference, Status: "succeeded"})
		p.charges++
		if key == "" {
			p.unkeyed++
		} else {
			p.keyed[key]++
		}
	}
	if key != "" {
		p.byKey[key] = &entry{fingerprint: fp, status: status, body: body}
	}
	return status, body, false, true
}

func (p *Processor) newID() string {
	p.rngMu.Lock()
	defer p.rngMu.Unlock()
	return fmt.Sprintf("ch_%016x", p.rng.Uint64())
}

func fingerprint(req chargeRequest) string {
	b, _ := json.Marshal(req)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func validCurrency(c string) bool {
	if len(c) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		if c[i] < 'A' || c[i] > 'Z' {
			return false
		}
	}
	return true
}
