package ratelimit

import (
	"net/http"
	"testing"

	"github.com/resilcheck/resilcheck/check"
)

func TestLimitedRoutes(t *testing.T) {
	t.Parallel()
	refund := check.Operation{Request: func(v check.Values, _ bool) (check.Request, error) {
		return check.Request{Method: http.MethodPut, Path: "/v1/refunds/" + v.Key + "?tenant=" + v.Tenant}, nil
	}}
	h := &check.Harness{Policy: check.Policy{RateLimitProbe: "/v1/limits", RateLimited: []check.Operation{refund}}}
	routes := limitedRoutes(h)
	tests := []struct {
		method, path string
		want         bool
	}{
		{"GET", "/v1/limits", true},
		{"POST", "/v1/limits", false},
		{"PUT", "/v1/refunds/abc", true},
		{"PUT", "/v1/refunds/abc/extra", false},
		{"GET", "/v1/refunds/abc", false},
		{"POST", "/v1/payments", false},
	}
	for _, tt := range tests {
		if got := anyRoute(routes, tt.method, tt.path); got != tt.want {
			t.Errorf("%s %s: declared route %v, want %v", tt.method, tt.path, got, tt.want)
		}
	}
}
