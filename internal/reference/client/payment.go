package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

// PaymentRequest is one logical payment. Every attempt of CreatePayment
// sends the same body and the same key.
type PaymentRequest struct {
	Amount   int64  `json:"amount"`   // minor units (cents); must be positive
	Currency string `json:"currency"` // ISO 4217 code: three upper-case letters
	// Key is the idempotency key. Empty means a fresh one from the key func.
	// Set it only to resume an operation whose outcome is unknown (after a
	// RetryError), with the identical Amount and Currency (IK-09).
	Key string `json:"-"`
}

// Payment is a payment as the gateway reports it.
type Payment struct {
	ID       string `json:"id"`
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
	Status   string `json:"status"`
	ChargeID string `json:"charge_id,omitempty"`
	// Replayed is true when the server answered from its idempotency record
	// (Idempotent-Replayed: true) rather than executing the request again.
	Replayed bool `json:"-"`
	// Attempts is how many attempts the call took.
	Attempts int `json:"-"`
}

// CreatePayment posts r once, logically: every retry carries the same
// Idempotency-Key, so the payment is charged at most once. It blocks until
// success, a non-retryable *StatusError (e.g. 402 declined, 422), or a
// *RetryError. A payload that fails local validation wraps ErrInvalidRequest.
func (c *Client) CreatePayment(ctx context.Context, r PaymentRequest) (Payment, error) {
	if err := r.validate(); err != nil {
		return Payment{}, err
	}
	key := r.Key
	if key == "" {
		key = c.newKey()
	}
	if key == "" || !printableASCII(key) {
		return Payment{}, fmt.Errorf("client: idempotency key %q: want non-empty printable ASCII: %w", key, ErrInvalidRequest)
	}
	body, err := json.Marshal(r)
	if err != nil {
		return Payment{}, fmt.Errorf("client: encode payment: %w", err)
	}
	u := c.base.JoinPath("v1", "payments").String()
	res, err := c.do(ctx, call{op: "CreatePayment", method: http.MethodPost, url: u, body: body, key: key})
	if err != nil {
		return c.falseSuccess(err)
	}
	return decodePayment("CreatePayment", res)
}

// GetPayment fetches the payment with the given id within the client's
// tenant. GET is idempotent, so it is retried without a key. A missing
// payment is a *StatusError with Status 404.
func (c *Client) GetPayment(ctx context.Context, id string) (Payment, error) {
	if id == "" || id == "." || id == ".." || !printableASCII(id) {
		return Payment{}, fmt.Errorf("client: payment id %q: want printable ASCII: %w", id, ErrInvalidRequest)
	}
	u := c.base.JoinPath("v1", "payments", url.PathEscape(id)).String()
	res, err := c.do(ctx, call{op: "GetPayment", method: http.MethodGet, url: u})
	if err != nil {
		return c.falseSuccess(err)
	}
	return decodePayment("GetPayment", res)
}

func (r PaymentRequest) validate() error {
	if r.Amount <= 0 {
		return fmt.Errorf("client: amount %d: want a positive number of minor units: %w", r.Amount, ErrInvalidRequest)
	}
	if len(r.Currency) != 3 || strings.IndexFunc(r.Currency, func(c rune) bool { return c < 'A' || c > 'Z' }) >= 0 {
		return fmt.Errorf("client: currency %q: want three upper-case letters: %w", r.Currency, ErrInvalidRequest)
	}
	return nil
}

func decodePayment(op string, res *response) (Payment, error) {
	var p Payment
	if err := json.Unmarshal(res.body, &p); err != nil {
		return Payment{}, fmt.Errorf("client: %s: decode %d response: %w", op, res.status, err)
	}
	p.Replayed = res.header.Get(hdrReplayed) == "true"
	p.Attempts = res.attempts
	return p, nil
}

func statusError(res *response, attempts int) *StatusError {
	e := &StatusError{Status: res.status, Body: res.body, Attempts: attempts}
	if mt, _, err := mime.ParseMediaType(res.header.Get("Content-Type")); err == nil && mt == "application/problem+json" {
		var p Problem
		if json.Unmarshal(res.body, &p) == nil {
			e.Problem = &p
		}
	}
	return e
}

// sfString encodes key as an RFC 8941 sf-string, as the Idempotency-Key
// draft §2.1 requires (IK-01). key is printable ASCII, checked by the caller.
func sfString(key string) string {
	var b strings.Builder
	b.Grow(len(key) + 2)
	b.WriteByte('"')
	for i := 0; i < len(key); i++ {
		if key[i] == '"' || key[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(key[i])
	}
	b.WriteByte('"')
	return b.String()
}

// falseSuccess returns err, or with defect.ClientFalseSuccess an empty
// payment and no error when the retries ran out.
func (c *Client) falseSuccess(err error) (Payment, error) {
	var re *RetryError
	if c.defects.Has(defect.ClientFalseSuccess) && errors.As(err, &re) {
		return Payment{Status: "unknown"}, nil
	}
	return Payment{}, err
}
