package payments

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

const maxBody = 64 << 10

// paymentRequest is a validated POST /v1/payments body.
type paymentRequest struct {
	Amount   int64
	Currency string
	// canonical is the body re-encoded with sorted keys and no whitespace, so
	// key order and spacing do not change the fingerprint.
	canonical []byte
}

var errBody = errors.New(`payments: want {"amount": <integer > 0>, "currency": "<3 upper-case letters>"}`)

// readPayment reads and validates the body. Unknown and repeated fields are
// rejected so that the fingerprint covers exactly what the payment means.
func readPayment(w http.ResponseWriter, r *http.Request) (paymentRequest, error) {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		return paymentRequest{}, fmt.Errorf("%w: body unreadable or over %d bytes", errBody, maxBody)
	}
	return parsePayment(raw)
}

// parsePayment validates a payment's JSON body, as readPayment reads it
// from a request and the queue consumer from a message.
func parsePayment(raw []byte) (paymentRequest, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return paymentRequest{}, errBody
	}
	if _, err := dec.Token(); err != io.EOF {
		return paymentRequest{}, fmt.Errorf("%w: trailing data after the object", errBody)
	}
	if name := duplicateMember(raw); name != "" {
		return paymentRequest{}, fmt.Errorf("%w: member %q appears twice", errBody, name)
	}
	var p paymentRequest
	for k, v := range m {
		switch k {
		case "amount":
			n, ok := v.(json.Number)
			if !ok {
				return p, errBody
			}
			a, err := strconv.ParseInt(string(n), 10, 64)
			if err != nil || a <= 0 {
				return p, errBody
			}
			p.Amount = a
		case "currency":
			s, ok := v.(string)
			if !ok || !validCurrency(s) {
				return p, errBody
			}
			p.Currency = s
		default:
			return p, fmt.Errorf("%w: unknown field", errBody)
		}
	}
	if p.Amount == 0 || p.Currency == "" {
		return p, errBody
	}
	p.canonical, _ = json.Marshal(m) // maps marshal with sorted keys
	return p, nil
}

// paymentOf validates a payment given as fields, as the gRPC face reads
// it. Its canonical form is the JSON body parsePayment would canonicalize
// to, so a payment sent through either face has one fingerprint.
func paymentOf(amount int64, currency string) (paymentRequest, error) {
	if amount <= 0 || !validCurrency(currency) {
		return paymentRequest{}, errBody
	}
	canonical, err := json.Marshal(map[string]any{"amount": amount, "currency": currency})
	if err != nil {
		return paymentRequest{}, fmt.Errorf("payments: %w", err)
	}
	return paymentRequest{Amount: amount, Currency: currency, canonical: canonical}, nil
}

// fingerprint digests what makes two requests "the same" (draft §2.4).
func fingerprint(method, path string, canonical []byte) string {
	h := sha256.New()
	h.Write([]byte(method))
	h.Write([]byte{0})
	h.Write([]byte(path))
	h.Write([]byte{0})
	h.Write(canonical)
	return hex.EncodeToString(h.Sum(nil))
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
