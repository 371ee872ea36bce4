package retryafter

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// TestRaRefusal_protocols: an HTTP dependency gets the status with every
// header given; a gRPC one the matching code with the Retry-After's
// seconds as pushback, and a Retry-After with no pushback form is an
// error, not a guess.
func TestRaRefusal_protocols(t *testing.T) {
	rateLimited := map[string]string{"Retry-After": "1", "RateLimit": `"dep";r=0;t=0`}
	tests := []struct {
		name   string
		grpc   bool
		status int
		hdr    map[string]string
		want   faults.Fault // nil = an error
		text   string
	}{
		{"http", false, 503, rateLimited, faults.Abort{Status: 503,
			Headers: map[string]string{"Content-Type": "application/problem+json", "Retry-After": "1", "RateLimit": `"dep";r=0;t=0`},
			Body:    `{"type":"about:blank","title":"Service Unavailable","status":503}`}, "a 503 with Retry-After: 1"},
		{"grpc 503", true, 503, rateLimited, faults.GRPCStatus{Code: 14, Pushback: time.Second}, "UNAVAILABLE (14) with grpc-retry-pushback-ms: 1000"},
		{"grpc 429", true, 429, map[string]string{"Retry-After": "3"}, faults.GRPCStatus{Code: 8, Pushback: 3 * time.Second}, "RESOURCE_EXHAUSTED (8) with grpc-retry-pushback-ms: 3000"},
		{"grpc huge", true, 503, map[string]string{"Retry-After": "1000000"}, faults.GRPCStatus{Code: 14, Pushback: 1e6 * time.Second}, "UNAVAILABLE (14) with grpc-retry-pushback-ms: 1000000000"},
		{"grpc date", true, 503, map[string]string{"Retry-After": "Sun, 06 Nov 1994 08:49:37 GMT"}, nil, ""},
		{"grpc negative", true, 503, map[string]string{"Retry-After": "-1"}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &check.Harness{DependencyGRPC: tt.grpc}
			f, text, err := raRefusal(h, tt.status, tt.hdr, "a 503 with Retry-After: 1")
			switch {
			case tt.want == nil && err == nil:
				t.Fatalf("raRefusal = %#v; want an error", f)
			case tt.want == nil:
				return
			case err != nil:
				t.Fatal(err)
			}
			if !reflect.DeepEqual(f, tt.want) {
				t.Errorf("fault %#v, want %#v", f, tt.want)
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

// TestRaPropertyWant_protocols: HS-08p promises a gRPC dependency's
// pushbacks, not Retry-After values and RateLimit fields it never sends.
func TestRaPropertyWant_protocols(t *testing.T) {
	grpc := raPropertyWant(&check.Harness{DependencyGRPC: true}, 50*time.Millisecond, 300*time.Millisecond)
	if strings.Contains(grpc, "Retry-After") || strings.Contains(grpc, "RateLimit") || !strings.Contains(grpc, "grpc-retry-pushback-ms") {
		t.Errorf("gRPC: %q", grpc)
	}
	if h := raPropertyWant(&check.Harness{}, 50*time.Millisecond, 300*time.Millisecond); !strings.Contains(h, "Retry-After of 2–4 s") {
		t.Errorf("HTTP: %q", h)
	}
}
