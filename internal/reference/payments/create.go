package payments

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/resilcheck/resilcheck/headers"
	"github.com/resilcheck/resilcheck/internal/reference/defect"
	"github.com/resilcheck/resilcheck/internal/reference/store"
)

// storeWriteTimeout bounds the store writes that follow a processor answer.
// They run detached from the caller: once money may have moved, the record
// must be completed or released even if the caller has gone.
const storeWriteTimeout = 5 * time.Second

// job is one validated POST /v1/payments.
type job struct {
	tenant    string // the caller's tenant; the payment belongs to it
	recTenant string // the record scope (tenant, unless cross-tenant-keys)
	key       string
	owner     string
	paymentID string
	claimedAt time.Time // the first claim of its key: the payment's creation, and its TTL's start
	req       paymentRequest
	fp        string
	deadline  time.Time
}

// createdAt is when j's payment was created: its key's first claim, so a
// payment is as old as its key and paymentIDFor's TTL test agrees with the
// key record's expiry (the charge may complete many seconds after the
// claim); now where no claim is held (the defects).
func (j job) createdAt(now time.Time) time.Time {
	if j.claimedAt.IsZero() {
		return now
	}
	return j.claimedAt
}

// reply is a response to write.
type reply struct {
	status     int
	body       []byte
	location   string
	retryAfter time.Duration // > 0 adds Retry-After
	replayed   bool
}

func (s *Server) handleCreate(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	budget, ok, err := headers.Timeout(r.Header)
	if err != nil {
		writeProblem(w, http.StatusBadRequest, probInvalidTime, "Invalid timeout",
			"X-Request-Timeout-Ms must be a non-negative integer of milliseconds; grpc-timeout 1-8 digits and a unit")
		return
	}
	if !ok || budget > s.cfg.maxBudget {
		budget = s.cfg.maxBudget
	}
	if budget <= 0 {
		writeProblem(w, http.StatusGatewayTimeout, probDeadline, "Deadline exceeded",
			"the request's budget was already spent on arrival; nothing was done")
		return
	}
	key, err := parseKey(r.Header.Values("Idempotency-Key"))
	switch {
	case errors.Is(err, errKeyMissing):
		writeProblem(w, http.StatusBadRequest, probKeyMissing, "Idempotency-Key required",
			"POST /v1/payments needs an Idempotency-Key header: a unique value per payment, reused on every retry")
		return
	case err != nil:
		writeProblem(w, http.StatusBadRequest, probKeyInvalid, "Invalid Idempotency-Key",
			`the key must be one sf-string ("...") or token of [A-Za-z0-9._:~-], 1-255 characters`)
		return
	}
	req, err := readPayment(w, r)
	if err != nil {
		// Not stored (Stripe SP-05): the corrected request may reuse the key.
		writeProblem(w, http.StatusBadRequest, probInvalidBody, "Invalid payment", err.Error())
		return
	}
	tenant := tenantOf(r)
	j := job{
		tenant: tenant, recTenant: s.recordTenant(tenant), key: key, req: req,
		fp:       fingerprint(r.Method, r.URL.Path, req.canonical),
		deadline: start.Add(budget),
	}
	write(w, s.create(r.Context(), j))
}

// create runs j by its deadline, whichever face it came through: one key
// is one payment over HTTP and gRPC alike.
func (s *Server) create(ctx context.Context, j job) reply {
	ctx, cancel := context.WithDeadline(ctx, j.deadline)
	defer cancel()
	switch {
	case s.cfg.defects.Has(defect.NoIdempotency):
		return s.createUnclaimed(ctx, j)
	case s.cfg.defects.Has(defect.RacyIdempotency):
		return s.createRacy(ctx, j)
	}
	return s.createClaimed(ctx, j)
}

// createClaimed is the correct flow: claim, then replay, refuse or drive.
func (s *Server) createClaimed(ctx context.Context, j job) reply {
	now := time.Now()
	j.owner = s.rng.id("own")
	pid, err := s.paymentIDFor(ctx, j, now)
	if err != nil {
		return s.storeFailure(ctx, "claim", err)
	}
	rec := store.Record{
		Tenant: j.recTenant, Key: j.key, Fingerprint: j.fp, PaymentID: pid,
		State: store.InProgress, Owner: j.owner, LeaseUntil: now.Add(s.cfg.lease),
		CreatedAt: now, ExpiresAt: now.Add(s.cfg.keyTTL),
	}
	stored, owned, err := s.store.Claim(ctx, rec, now)
	if err != nil {
		return s.storeFailure(ctx, "claim", err)
	}
	mismatch := stored.Fingerprint != j.fp && !s.cfg.defects.Has(defect.ReplayMismatch)
	if owned && mismatch {
		// A takeover by a request with another payload: hand the record back
		// untouched for a retry of the original payload.
		s.release(ctx, j)
		return keyReused()
	}
	if !owned {
		switch {
		case mismatch:
			return keyReused()
		case stored.State == store.InProgress:
			return problemReply(http.StatusConflict, time.Second, probInProgress, "Request in progress",
				"a request with this Idempotency-Key is still being processed; retry it unchanged later", "")
		default:
			return replay(stored)
		}
	}
	j.paymentID, j.claimedAt = stored.PaymentID, stored.CreatedAt
	s.failAt(StepClaimed, j)
	return s.drive(ctx, j, s.complete)
}

// maxGenerations bounds how many times one key and payload are reused
// after their TTL; past it a claim is refused as a store failure.
const maxGenerations = 1000

// paymentIDFor returns the payment id a claim of j drives: the first
// generation of its derived id whose payment is not in the ledger or was
// made within the key's TTL (a payment is dated by its key's first claim).
// A retry whose committed claim was lost so drives the id it drove before,
// which the processor dedupes; a key reused with the same payload after
// its TTL, a new payment, drives a new one, which the processor charges
// and the ledger keeps beside the old.
func (s *Server) paymentIDFor(ctx context.Context, j job, now time.Time) (string, error) {
	for gen := range maxGenerations {
		id := claimedPaymentID(j.recTenant, j.key, j.fp, gen)
		p, err := s.store.Payment(ctx, j.tenant, id)
		switch {
		case errors.Is(err, store.ErrNotFound):
			return id, nil
		case err != nil:
			return "", fmt.Errorf("payments: looking up payment %s: %w", id, err)
		case now.Sub(p.CreatedAt) < s.cfg.keyTTL:
			return id, nil
		}
	}
	return "", fmt.Errorf("payments: key %q reused with one payload %d times", j.key, maxGenerations)
}

// createUnclaimed is the no-idempotency defect: no claim, a new payment id
// (and so a new processor key) per request.
func (s *Server) createUnclaimed(ctx context.Context, j job) reply {
	j.paymentID = s.rng.id("pay")
	return s.drive(ctx, j, s.put)
}

// createRacy is the racy-idempotency defect: look the key up, and when it is
// absent charge and write, with nothing held in between. Concurrent copies
// all find it absent during the processor call and all charge.
func (s *Server) createRacy(ctx context.Context, j job) reply {
	rec, err := s.store.Lookup(ctx, j.recTenant, j.key)
	switch {
	case err == nil && rec.State != store.InProgress && time.Now().Before(rec.ExpiresAt):
		if rec.Fingerprint != j.fp && !s.cfg.defects.Has(defect.ReplayMismatch) {
			return keyReused()
		}
		return replay(rec)
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return s.storeFailure(ctx, "lookup", err)
	}
	j.paymentID = s.rng.id("pay")
	return s.drive(ctx, j, s.put)
}

// finish persists a final answer for j; it returns an error when the answer
// must not be sent because it is not committed.
type finish func(ctx context.Context, j job, state store.State, status int, body []byte, p *store.Payment) error

// drive charges j.paymentID at the processor and turns the outcome into a
// committed reply. Under work-after-deadline the call runs detached with its
// own timeout and the caller gets 504 at its deadline while it goes on.
func (s *Server) drive(ctx context.Context, j job, fin finish) reply {
	if !s.cfg.defects.Has(defect.WorkAfterDeadline) {
		return s.execute(ctx, j, fin, true)
	}
	dctx, dcancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.maxBudget)
	done := make(chan reply, 1)
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		defer dcancel()
		done <- s.execute(dctx, j, fin, false)
	}()
	select {
	case rep := <-done:
		return rep
	case <-ctx.Done():
		return deadlineReply(j.paymentID)
	}
}

func (s *Server) execute(ctx context.Context, j job, fin finish, enforce bool) reply {
	out := s.caller.charge(ctx, chargeCall{
		amount: j.req.Amount, currency: j.req.Currency, reference: j.paymentID,
		key: j.paymentID, deadline: j.deadline, enforce: enforce,
	})
	s.log.Debug("payments: charge", "payment", j.paymentID, "kind", out.kind, "attempts", out.attempts)
	s.failAt(StepCharged, j)
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeWriteTimeout)
	defer cancel()
	now := time.Now()
	switch out.kind {
	case charged:
		body, _ := json.Marshal(paymentView{ID: j.paymentID, Amount: j.req.Amount, Currency: j.req.Currency,
			Status: "succeeded", ChargeID: out.chargeID})
		p := &store.Payment{ID: j.paymentID, Tenant: j.tenant, Key: j.key, Amount: j.req.Amount,
			Currency: j.req.Currency, ChargeID: out.chargeID, Status: "succeeded", CreatedAt: j.createdAt(now)}
		if err := fin(wctx, j, store.Succeeded, http.StatusCreated, body, p); err != nil {
			return s.unfinished(wctx, j, err)
		}
		if s.publisher != nil {
			s.publisher.committed(p)
		}
		if s.sender != nil {
			s.sender.notify(paymentView{ID: j.paymentID, Amount: j.req.Amount, Currency: j.req.Currency, Status: "succeeded", ChargeID: out.chargeID})
		}
		s.failAt(StepCompleted, j)
		return reply{status: http.StatusCreated, body: body, location: "/v1/payments/" + j.paymentID}
	case declined:
		body := problemBody(http.StatusPaymentRequired, probDeclined, "Payment declined",
			"the processor declined this charge; this answer is final for this Idempotency-Key", j.paymentID)
		p := &store.Payment{ID: j.paymentID, Tenant: j.tenant, Key: j.key, Amount: j.req.Amount,
			Currency: j.req.Currency, Status: "declined", CreatedAt: j.createdAt(now)}
		if err := fin(wctx, j, store.Failed, http.StatusPaymentRequired, body, p); err != nil {
			return s.unfinished(wctx, j, err)
		}
		s.failAt(StepCompleted, j)
		return reply{status: http.StatusPaymentRequired, body: body}
	case rejected:
		s.release(wctx, j)
		return problemReply(http.StatusBadGateway, 0, probUpstream, "Processor rejected the charge",
			"the processor refused the request; nothing was charged", j.paymentID)
	}
	// Unknown outcome: hand the claim back so a retry re-drives the same
	// payment id, which the processor dedupes.
	s.release(wctx, j)
	if out.deadline {
		return deadlineReply(j.paymentID)
	}
	return problemReply(http.StatusServiceUnavailable, out.retryAfter, probUnavailable, "Processor unavailable",
		"the processor did not confirm the charge; retry with the same Idempotency-Key", j.paymentID)
}

// complete is the correct finish: owner-checked, in one transaction with the payment.
func (s *Server) complete(ctx context.Context, j job, state store.State, status int, body []byte, p *store.Payment) error {
	return s.store.Complete(ctx, j.recTenant, j.key, j.owner, state, status, body, p)
}

// put is the defects' finish: an unconditional last-writer-wins write.
func (s *Server) put(ctx context.Context, j job, state store.State, status int, body []byte, p *store.Payment) error {
	now := time.Now()
	return s.store.Put(ctx, store.Record{
		Tenant: j.recTenant, Key: j.key, Fingerprint: j.fp, PaymentID: j.paymentID, State: state,
		Status: status, Body: body, CreatedAt: now, ExpiresAt: now.Add(s.cfg.keyTTL),
	}, p)
}

// unfinished answers when the outcome could not be committed.
func (s *Server) unfinished(ctx context.Context, j job, err error) reply {
	if errors.Is(err, store.ErrNotOwner) {
		// A retry took the claim over after our lease ran out; it drives the
		// same payment id and will commit the same charge.
		return problemReply(http.StatusConflict, time.Second, probInProgress, "Request in progress",
			"another attempt with this Idempotency-Key is completing it; retry it unchanged", "")
	}
	s.log.Warn("payments: commit", "payment", j.paymentID, "err", err)
	s.release(ctx, j)
	return problemReply(http.StatusServiceUnavailable, time.Second, probStore, "Store unavailable",
		"the payment could not be recorded; retry with the same Idempotency-Key", "")
}

func (s *Server) release(ctx context.Context, j job) {
	if j.owner == "" {
		return // defects hold no claim
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeWriteTimeout)
	defer cancel()
	if err := s.store.Release(ctx, j.recTenant, j.key, j.owner); err != nil {
		// The lease expires on its own; until then retries get 409.
		s.log.Warn("payments: release", "key_owner", j.owner, "err", err)
	}
}

func (s *Server) storeFailure(ctx context.Context, op string, err error) reply {
	if ctx.Err() != nil {
		return deadlineReply("")
	}
	s.log.Warn("payments: store", "op", op, "err", err)
	return problemReply(http.StatusServiceUnavailable, time.Second, probStore, "Store unavailable",
		"the idempotency store did not answer; retry with the same Idempotency-Key", "")
}

func replay(rec store.Record) reply {
	rep := reply{status: rec.Status, body: rec.Body, replayed: true}
	if rec.Status == http.StatusCreated {
		rep.location = "/v1/payments/" + rec.PaymentID
	}
	return rep
}

func keyReused() reply {
	return problemReply(http.StatusUnprocessableEntity, 0, probKeyReused, "Idempotency-Key reused",
		"this Idempotency-Key was first used with a different request payload; use a new key", "")
}

func deadlineReply(paymentID string) reply {
	return problemReply(http.StatusGatewayTimeout, 0, probDeadline, "Deadline exceeded",
		"the request's budget ran out before the charge was confirmed; retry with the same Idempotency-Key", paymentID)
}

func problemReply(status int, retryAfter time.Duration, anchor, title, detail, paymentID string) reply {
	return reply{status: status, retryAfter: retryAfter, body: problemBody(status, anchor, title, detail, paymentID)}
}

func write(w http.ResponseWriter, rep reply) {
	h := w.Header()
	if rep.replayed {
		h.Set("Idempotent-Replayed", "true")
	}
	if rep.location != "" {
		h.Set("Location", rep.location)
	}
	if rep.retryAfter > 0 {
		h.Set("Retry-After", headers.FormatRetryAfter(max(rep.retryAfter, time.Second)))
	}
	writeRaw(w, rep.status, rep.body)
}
