package retryafter

import (
	"fmt"
	"strconv"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// raRefusal is the dependency's answer status (429 or 503) with hdr, a
// Retry-After among them, in the dependency's protocol, and its
// description for a verdict (text describes the HTTP answer): for a gRPC
// dependency RESOURCE_EXHAUSTED or UNAVAILABLE with the Retry-After as
// grpc-retry-pushback-ms (check.GRPCRefusal), the rest of hdr having no
// gRPC form; else raAbort's HTTP answer. The error says a Retry-After has
// no pushback form: only delay-seconds has.
func raRefusal(h *check.Harness, status int, hdr map[string]string, text string) (faults.Fault, string, error) {
	if !h.DependencyGRPC {
		return raAbort(status, hdr), text, nil
	}
	secs, err := strconv.ParseInt(hdr["Retry-After"], 10, 64)
	if err != nil || secs < 0 || secs > int64(time.Duration(1<<62)/time.Second) {
		return nil, "", fmt.Errorf("Retry-After %q is no delay-seconds: grpc-retry-pushback-ms has no form for it", hdr["Retry-After"])
	}
	pushback := time.Duration(secs) * time.Second
	return check.GRPCRefusal(status, pushback), check.GRPCRefusalText(status, pushback), nil
}
