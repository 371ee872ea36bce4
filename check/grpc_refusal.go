package check

import (
	"fmt"
	"net/http"
	"time"

	"github.com/resilcheck/resilcheck/faults"
)

// GRPCRefusal is how a gRPC dependency refuses a call that an HTTP one
// answers with status: RESOURCE_EXHAUSTED for a 429, UNAVAILABLE for any
// other, in a Trailers-Only answer, with pushback as
// grpc-retry-pushback-ms, the gRPC counterpart of Retry-After (gRFC A6,
// "Pushback"): positive, the wait before the next attempt; negative, do
// not retry; zero, none sent.
func GRPCRefusal(status int, pushback time.Duration) faults.GRPCStatus {
	code := grpcUnavailable
	if status == http.StatusTooManyRequests {
		code = grpcResourceExhausted
	}
	return faults.GRPCStatus{Code: int(code), Pushback: pushback}
}

// The codes GRPCRefusal answers with (google.rpc.Code).
const (
	grpcResourceExhausted GRPCCode = 8
	grpcUnavailable       GRPCCode = 14
)

// GRPCRefusalText describes GRPCRefusal(status, pushback) for a verdict,
// "UNAVAILABLE (14) with grpc-retry-pushback-ms: 1000".
func GRPCRefusalText(status int, pushback time.Duration) string {
	f := GRPCRefusal(status, pushback)
	s := GRPCCode(f.Code).String()
	switch {
	case pushback < 0:
		s += " with grpc-retry-pushback-ms: -1"
	case pushback > 0:
		s += fmt.Sprintf(" with grpc-retry-pushback-ms: %d", max(pushback.Milliseconds(), 1))
	}
	return s
}
