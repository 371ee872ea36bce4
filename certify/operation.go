package certify

import (
	"fmt"

	"github.com/resilcheck/resilcheck/suites"
)

// referenceOperation is the reference stack's effectful request: POST
// /v1/payments, with POST /charges as the effect at the processor.
func referenceOperation() suites.Operation {
	return suites.Operation{
		Method:      "POST",
		Path:        "/v1/payments",
		ContentType: "application/json",
		Render: func(v suites.Values, alt bool) ([]byte, error) {
			currency := "EUR"
			if alt {
				currency = "USD"
			}
			return fmt.Appendf(nil, `{"amount": %d, "currency": %q}`, v.Amount, currency), nil
		},
		EffectMethod: "POST",
		EffectPath:   "/charges",
	}
}
