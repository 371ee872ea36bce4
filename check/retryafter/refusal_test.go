package retryafter

import (
	"net/http"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// TestRaRefusal: an HTTP dependency gets the status with its headers; a
// gRPC one the matching code with the Retry-After's seconds as pushback,
// and a Retry-After with no pushback form is an error, not a guess.
func TestRaRefusal(t *testing.T) {
	tests := []struct {
		name   string
		grpc   bool
		status int
		ra     string
		want   faults.Fault // nil = an error
		text   string
	}{
		{"http", false, 503, "1", raAbort(503, map[string]string{"Retry-After": "1"}), "a 503 with Retry-After: 1"},
		{"grpc 503", true, 503, "1", faults.GRPCStatus{Code: 14, Pushback: time.Second}, "UNAVAILABLE (14) with grpc-retry-pushback-ms: 1000"},
		{"grpc 429", true, 429, "3", faults.GRPCStatus{Code: 8, Pushback: 3 * time.Second}, "RESOURCE_EXHAUSTED (8) with grpc-retry-pushback-ms: 3000"},
		{"grpc huge", true, 503, "1000000", faults.GRPCStatus{Code: 14, Pushback: 1e6 * time.Second}, "UNAVAILABLE (14) with grpc-retry-pushback-ms: 1000000000"},
		{"grpc date", true, 503, "Sun, 06 Nov 1994 08:49:37 GMT", nil, ""},
		{"grpc negative", true, 503, "-1", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &check.Harness{DependencyGRPC: tt.grpc}
			f, text, err := raRefusal(h, tt.status, map[string]string{"Retry-After": tt.ra}, "a 503 with Retry-After: 1")
			switch {
			case tt.want == nil && err == nil:
				t.Fatalf("raRefusal = %#v; want an error", f)
			case tt.want == nil:
				return
			case err != nil:
				t.Fatal(err)
			}
			if got, ok := f.(faults.GRPCStatus); ok && got != tt.want {
				t.Errorf("fault %#v, want %#v", got, tt.want)
			}
			if _, ok := f.(faults.Abort); ok != !tt.grpc {
				t.Errorf("fault %T for a gRPC dependency %v", f, tt.grpc)
			}
			if text != tt.text {
				t.Errorf("text %q, want %q", text, tt.text)
			}
		})
	}
}

// TestGRPCRefusalText: a negative pushback is sent and told as -1.
func TestGRPCRefusalText(t *testing.T) {
	if got := check.GRPCRefusalText(http.StatusServiceUnavailable, -time.Millisecond); got != "UNAVAILABLE (14) with grpc-retry-pushback-ms: -1" {
		t.Errorf("text %q", got)
	}
	if got := check.GRPCRefusalText(http.StatusTooManyRequests, 0); got != "RESOURCE_EXHAUSTED (8)" {
		t.Errorf("text %q", got)
	}
}
