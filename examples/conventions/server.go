package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/headers"
)

// The conventions this service speaks, each under a name other than
// resilcheck's default.
const (
	keyHeader     = "X-Idem-Key" // an RFC 9651 String: "abc"
	legacyKey     = "Idempotency-Key"
	accountHeader = "X-Account"
	maxKeyLen     = 255
)

type config struct {
	ledgerURL string
	accounts  []string
	keyTTL    time.Duration
	maxBudget time.Duration
	brk       breakName
	retry     retryPolicy
	quota     int64 // requests per second per account on the limited routes
}

// server serves the two operations, the effects probe, the quota probe
// and the health check.
type server struct {
	cfg    config
	store  *store
	ledger *ledger
	limits *limiter
	mux    *http.ServeMux
}

// operation is what differs between the two effectful routes.
type operation struct {
	name    string
	status  int  // the success status
	perform bool // perform afresh every time, ignoring the key (a break)
	limited bool // charged to the account's rate limit
}

func newServer(cfg config) *server {
	s := &server{cfg: cfg, store: newStore(cfg.keyTTL), ledger: newLedger(cfg.ledgerURL, cfg.retry, cfg.brk),
		limits: newLimiter(cfg.quota, cfg.brk), mux: http.NewServeMux()}
	s.mux.HandleFunc("GET /livez", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	s.mux.HandleFunc("POST /v1/transfers", s.operate(operation{name: "transfer", status: http.StatusCreated, limited: true}))
	s.mux.HandleFunc("PUT /v1/orders/{order}", s.operate(operation{name: "order", status: http.StatusOK,
		perform: cfg.brk == "put-not-idempotent"}))
	s.mux.HandleFunc("GET /v1/effects", s.probe)
	s.mux.HandleFunc("GET /v1/quota", s.quota)
	return s
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// operate handles an effectful request: account, rate limit, deadline, key, payload,
// then the idempotency record decides between driving, replaying and
// refusing.
func (s *server) operate(op operation) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		account, ok := s.authenticate(w, r)
		if !ok || (op.limited && !s.admit(w, account, false)) {
			return
		}
		deadline, ok := s.deadline(w, r)
		if !ok {
			return
		}
		key, ok := s.key(w, r)
		if !ok {
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
		if err != nil || !json.Valid(body) {
			problem(w, http.StatusBadRequest, "invalid-body", "the body must be a JSON document")
			return
		}
		own := scope{account, key}
		sc := own
		if s.cfg.brk == "shared-responses" {
			sc.account = ""
		}
		if op.perform || key == "" {
			s.drive(w, r, op, deadline, own, nil, s.store.fresh(time.Now()), body)
			return
		}
		fp := r.Method + " " + r.URL.Path + "\n" + string(body)
		switch c, rec := s.store.claim(sc, fp, time.Now()); c {
		case claimMismatch:
			status := http.StatusBadRequest // Stripe: idempotency_error
			if s.cfg.brk == "mismatch-422" {
				status = http.StatusUnprocessableEntity
			}
			problem(w, status, "key-reused", "this key was used with a different request")
		case claimInFlight:
			w.Header().Set("Retry-After", "1")
			problem(w, http.StatusConflict, "key-in-flight", "a request with this key is in progress")
		case claimReplay:
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Idempotent-Replayed", "true")
			w.WriteHeader(rec.status)
			_, _ = w.Write(rec.body)
		default:
			s.drive(w, r, op, deadline, own, &sc, rec.id, body)
		}
	}
}

// drive writes the ledger entry and answers; rec, when set, is the claimed
// record to finish.
func (s *server) drive(w http.ResponseWriter, r *http.Request, op operation, deadline time.Time, own scope, rec *scope, id string, body []byte) {
	out, retryAfter := s.ledger.write(r.Context(), deadline, id, ledgerBody(own.account, op.name, body))
	if out != written {
		if rec != nil {
			s.store.finish(*rec, false, 0, nil) // outcome unknown: keep the id for the retry
		}
		switch out {
		case gone:
		case expired:
			problem(w, http.StatusGatewayTimeout, "deadline", "the request's grpc-timeout ran out")
		case rejected:
			problem(w, http.StatusBadGateway, "ledger-rejected", "the ledger refused the entry or did not confirm it")
		default:
			w.Header().Set("Retry-After", headers.FormatRetryAfter(max(retryAfter, time.Second)))
			problem(w, http.StatusServiceUnavailable, "ledger-unavailable", "the ledger is unavailable; retry with the same key")
		}
		return
	}
	s.store.counted(own)
	answer, _ := json.Marshal(map[string]any{"id": id, "status": "succeeded", "request": json.RawMessage(body)})
	if rec != nil {
		s.store.finish(*rec, true, op.status, answer)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(op.status)
	_, _ = w.Write(answer)
}

func ledgerBody(account, op string, req []byte) []byte {
	b, _ := json.Marshal(map[string]any{"account": account, "operation": op, "request": json.RawMessage(req)})
	return b
}

// authenticate binds the account to its credential: Authorization must be
// Bearer <account> for a known account, and X-Account must name it.
func (s *server) authenticate(w http.ResponseWriter, r *http.Request) (string, bool) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || !slices.Contains(s.cfg.accounts, token) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="conventions"`)
		problem(w, http.StatusUnauthorized, "unauthenticated", "a bearer credential of a known account is required")
		return "", false
	}
	if a := r.Header.Get(accountHeader); a != token {
		problem(w, http.StatusForbidden, "wrong-account", fmt.Sprintf("%s must name the credential's account", accountHeader))
		return "", false
	}
	return token, true
}

// deadline is now plus the caller's grpc-timeout, capped by the maximum
// budget; a request without one gets the maximum budget.
func (s *server) deadline(w http.ResponseWriter, r *http.Request) (time.Time, bool) {
	now := time.Now()
	budget := s.cfg.maxBudget
	if s.cfg.brk == "no-default-deadline" && r.Header.Get(headers.GRPCTimeout) == "" {
		budget = time.Hour
	}
	if v := r.Header.Get(headers.GRPCTimeout); v != "" && s.cfg.brk != "ignore-grpc-timeout" {
		d, err := headers.ParseGRPCTimeout(v)
		if err != nil {
			problem(w, http.StatusBadRequest, "bad-deadline", err.Error())
			return time.Time{}, false
		}
		budget = min(budget, d)
	}
	if budget <= 0 {
		problem(w, http.StatusGatewayTimeout, "deadline", "the request's grpc-timeout was already spent")
		return time.Time{}, false
	}
	return now.Add(budget), true
}

// key reads the idempotency key: exactly one field, an RFC 9651 String of
// 1 to 255 characters. "" with ok is a request without a key (a break).
func (s *server) key(w http.ResponseWriter, r *http.Request) (string, bool) {
	name := keyHeader
	if s.cfg.brk == "legacy-key-header" {
		name = legacyKey
	}
	vs := r.Header.Values(name)
	switch {
	case len(vs) == 0 && s.cfg.brk == "key-optional":
		return "", true
	case len(vs) == 0:
		problem(w, http.StatusBadRequest, "key-missing", name+" is required")
		return "", false
	}
	it, err := headers.ParseItem(strings.Join(vs, ","))
	k, isString := it.Value.(string)
	if isString && len(k) > maxKeyLen && s.cfg.brk == "long-key-500" {
		http.Error(w, "value too long for column idempotency_key", http.StatusInternalServerError)
		return "", false
	}
	if err != nil || !isString || k == "" || len(k) > maxKeyLen {
		problem(w, http.StatusBadRequest, "key-malformed", name+` must be one quoted string of 1 to 255 characters, e.g. "8e03978e-40d5-43e8-bc93-6894a57f9324"`)
		return "", false
	}
	return k, true
}

// probe answers the number of ledger entries made for the caller's account
// and ?key=: {"effects": {"count": N}}.
func (s *server) probe(w http.ResponseWriter, r *http.Request) {
	account, ok := s.authenticate(w, r)
	if !ok {
		return
	}
	key := r.URL.Query().Get("key")
	if key == "" {
		problem(w, http.StatusBadRequest, "key-missing", "?key= is required")
		return
	}
	n := s.store.count(scope{account, key})
	if s.cfg.brk == "probe-off-by-one" {
		n++
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"effects": map[string]int{"count": n}})
}

// problem writes an RFC 9457 problem whose type documents the error, with
// Stripe's idempotency_error code for key errors.
func problem(w http.ResponseWriter, status int, slug, detail string) {
	p := map[string]any{"type": "https://example.com/problems/" + slug, "title": http.StatusText(status), "status": status, "detail": detail}
	if strings.HasPrefix(slug, "key-") {
		p["code"] = "idempotency_error"
	}
	b, _ := json.Marshal(p)
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
