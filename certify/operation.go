package certify

import (
	"fmt"
	"time"

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

// referencePolicy is what the reference stack declares about itself (the
// same values as its spec; payments.RetryConfig and the gateway's defaults),
// for the run path that starts it without a spec.
func referencePolicy() suites.Policy {
	return suites.Policy{
		Retry: suites.RetryPolicy{MaxAttempts: 3, Backoff: "full", Base: 50 * time.Millisecond, Cap: time.Second,
			BudgetRatio: 0.2, BreakerRecovery: 1500 * time.Millisecond},
		DeadlineHeaders: []string{"X-Request-Timeout-Ms", "grpc-timeout", "x-envoy-upstream-rq-timeout-ms", "x-envoy-expected-rq-timeout-ms"},
		RateLimited:     []suites.Operation{referenceOperation()},
		RateLimitProbe:  "/healthz",
	}
}
