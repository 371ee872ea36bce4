package check

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/resilcheck/resilcheck/faults"
)

// Refusal is the dependency refusing a call with HTTP status (429 or a
// 5xx) in its own protocol, asking for retryAfter when positive: for a
// gRPC dependency GRPCRefusal's RESOURCE_EXHAUSTED or UNAVAILABLE with
// grpc-retry-pushback-ms; else status, with Retry-After in whole seconds
// (rounded up).
func (h *Harness) Refusal(status int, retryAfter time.Duration) faults.Fault {
	if h.DependencyGRPC {
		return GRPCRefusal(status, retryAfter)
	}
	var hd map[string]string
	if retryAfter > 0 {
		hd = map[string]string{"Retry-After": strconv.FormatInt(int64((retryAfter+time.Second-1)/time.Second), 10)}
	}
	return faults.Abort{Status: status, Headers: hd, Body: http.StatusText(status)}
}

// RefusalText names Refusal(status, retryAfter) for a verdict: "503",
// "429 Retry-After: 1", "UNAVAILABLE (14) with grpc-retry-pushback-ms: 1000".
func (h *Harness) RefusalText(status int, retryAfter time.Duration) string {
	switch {
	case h.DependencyGRPC:
		return GRPCRefusalText(status, retryAfter)
	case retryAfter > 0:
		return fmt.Sprintf("%d Retry-After: %d", status, (retryAfter+time.Second-1)/time.Second)
	}
	return strconv.Itoa(status)
}

// Rejection is an answer no retry can change, because the request itself
// is wrong, as the dependency's protocol says it.
type Rejection struct {
	Fault faults.Fault
	Text  string // "400", "INVALID_ARGUMENT (3)"
}

// Rejections are the dependency's answers no retry can change: 400, 401
// and 422 from an HTTP dependency (AWS retries only 500/502/503/504 and
// throttling; Envoy's retriable-4xx is 409 alone); from a gRPC one the
// codes google.rpc.Code maps them to, INVALID_ARGUMENT, UNAUTHENTICATED and
// FAILED_PRECONDITION, in a Trailers-Only answer (AIP-194 retries
// UNAVAILABLE alone).
func (h *Harness) Rejections() []Rejection {
	if h.DependencyGRPC {
		out := make([]Rejection, 0, len(grpcRejections))
		for _, code := range grpcRejections {
			out = append(out, Rejection{faults.GRPCStatus{Code: int(code)}, code.String()})
		}
		return out
	}
	out := make([]Rejection, 0, len(httpRejections))
	for _, status := range httpRejections {
		out = append(out, Rejection{faults.Abort{Status: status, Body: http.StatusText(status)}, strconv.Itoa(status)})
	}
	return out
}

var (
	httpRejections = []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusUnprocessableEntity}
	grpcRejections = []GRPCCode{3, 16, 9} // INVALID_ARGUMENT, UNAUTHENTICATED, FAILED_PRECONDITION
)
