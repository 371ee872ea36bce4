package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"
)

// defaultBudget bounds a request that arrives without a deadline.
const defaultBudget = 5 * time.Second

// orderHandler places orders: at most once per (tenant, key).
type orderHandler struct {
	keys    *keyStore
	gateway *gateway
}

// problem answers an RFC 9457 problem; type links to the documentation.
func problem(w http.ResponseWriter, status int, kind, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"type":   "https://docs.example.com/api/errors#" + kind,
		"title":  http.StatusText(status),
		"status": status,
		"detail": detail,
	})
}

func (h *orderHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	budget := defaultBudget
	if v := r.Header.Get(deadlineHeader); v != "" {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			problem(w, http.StatusBadRequest, "deadline", deadlineHeader+" must be milliseconds")
			return
		}
		budget = time.Duration(ms) * time.Millisecond
	}
	if budget <= 0 {
		problem(w, http.StatusGatewayTimeout, "deadline", "the request's deadline has passed")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), budget)
	defer cancel()

	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		problem(w, http.StatusBadRequest, "idempotency-key-missing", "POST /api/orders requires an Idempotency-Key")
		return
	}
	if err := checkKey(key); err != nil {
		problem(w, http.StatusBadRequest, "idempotency-key-invalid", err.Error())
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		problem(w, http.StatusBadRequest, "body", "unreadable body")
		return
	}
	tenant := r.Header.Get("X-Tenant")
	scope := tenant + "\x00" + key
	stored, state := h.keys.begin(scope, sha256.Sum256(body))
	switch state {
	case keyMismatch:
		problem(w, http.StatusUnprocessableEntity, "idempotency-key-reused", "this key was used with another payload")
		return
	case keyBusy:
		problem(w, http.StatusConflict, "idempotency-key-in-flight", "a request with this key is in progress")
		return
	case keyDone:
		writeAnswer(w, stored)
		return
	}
	a := h.place(ctx, tenant+"/"+key, body)
	if a.status >= 500 {
		h.keys.forget(scope) // nothing was charged for sure: the key may be retried
	} else {
		h.keys.finish(scope, a)
	}
	writeAnswer(w, a)
}

func (h *orderHandler) place(ctx context.Context, key string, body []byte) answer {
	charge, err := h.gateway.charge(ctx, key, body)
	var gw errGateway
	switch {
	case err == nil:
		return answer{status: http.StatusCreated, body: append([]byte(`{"status":"placed","charge":`), append(charge, '}')...)}
	case ctx.Err() != nil:
		return answer{status: http.StatusGatewayTimeout, body: []byte(`{"error":"deadline exceeded"}`)}
	case errors.As(err, &gw) && gw.status < 500 && gw.status != http.StatusTooManyRequests:
		return answer{status: http.StatusPaymentRequired, body: []byte(`{"error":"charge declined"}`)}
	}
	return answer{status: http.StatusServiceUnavailable, body: []byte(`{"error":"payment gateway unavailable"}`)}
}

func writeAnswer(w http.ResponseWriter, a answer) {
	w.Header().Set("Content-Type", "application/json")
	if a.status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body)
}
