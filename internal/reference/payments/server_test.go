package payments_test

import (
	"net/http"
	"testing"

	"github.com/resilcheck/resilcheck/internal/reference/payments"
)

func TestNew_Validation(t *testing.T) {
	st := openStore(t, "sqlite")
	for name, opts := range map[string][]payments.Option{
		"no store":       {payments.WithProcessorURL("http://127.0.0.1:1")},
		"no processor":   {payments.WithStore(st)},
		"bad processor":  {payments.WithStore(st), payments.WithProcessorURL("127.0.0.1:1")},
		"negative lease": {payments.WithStore(st), payments.WithProcessorURL("http://127.0.0.1:1"), payments.WithLease(-1)},
		"breaker": {payments.WithStore(st), payments.WithProcessorURL("http://127.0.0.1:1"),
			payments.WithRetry(payments.RetryConfig{BreakerFailures: 11, BreakerWindow: 10})},
	} {
		if _, err := payments.New(opts...); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

func TestServer_Healthz(t *testing.T) {
	st := openStore(t, "sqlite")
	_, purl := startProcessor(t)
	svc := startService(t, st, purl)
	r := call(t, http.MethodGet, svc+"/healthz", "", nil)
	if r.status != 200 || r.body != `{"status":"ok"}` {
		t.Errorf("healthz: %d %s", r.status, r.body)
	}
}
