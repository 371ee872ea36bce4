package headers

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Deadline header names. All carry a relative budget, recomputed at each hop,
// because absolute deadlines suffer clock skew.
const (
	RequestTimeoutMs  = "X-Request-Timeout-Ms"           // relative milliseconds (the reference stack's default)
	GRPCTimeout       = "Grpc-Timeout"                   // gRPC PROTOCOL-HTTP2: 1*8DIGIT unit
	EnvoyUpstreamRqMs = "X-Envoy-Upstream-Rq-Timeout-Ms" // caller → Envoy
	EnvoyExpectedRqMs = "X-Envoy-Expected-Rq-Timeout-Ms" // Envoy → upstream
)

// Timeout reads the caller's remaining budget from h, trying in order
// X-Request-Timeout-Ms, grpc-timeout and Envoy's two headers. ok is false when
// none is present; a present but malformed value returns an error wrapping
// ErrSyntax. A zero budget is valid and means already expired; a budget
// above MaxDelay is clamped to it.
func Timeout(h http.Header) (d time.Duration, ok bool, err error) {
	if v := h.Get(RequestTimeoutMs); v != "" {
		d, err = parseMillis(RequestTimeoutMs, v, 18)
		return d, err == nil, err
	}
	if v := h.Get(GRPCTimeout); v != "" {
		d, err = ParseGRPCTimeout(v)
		return d, err == nil, err
	}
	for _, name := range []string{EnvoyUpstreamRqMs, EnvoyExpectedRqMs} {
		if v := h.Get(name); v != "" {
			d, err = parseMillis(name, v, 18)
			return d, err == nil, err
		}
	}
	return 0, false, nil
}

// SetTimeout writes budget d to h in the named header's format, rounding down
// so the receiver never believes it has more time than the sender.
func SetTimeout(h http.Header, name string, d time.Duration) {
	if d < 0 {
		d = 0
	}
	switch http.CanonicalHeaderKey(name) {
	case GRPCTimeout:
		h.Set(GRPCTimeout, FormatGRPCTimeout(d))
	default:
		h.Set(name, strconv.FormatInt(d.Milliseconds(), 10))
	}
}

var grpcUnits = map[byte]time.Duration{
	'H': time.Hour, 'M': time.Minute, 'S': time.Second,
	'm': time.Millisecond, 'u': time.Microsecond, 'n': time.Nanosecond,
}

// ParseGRPCTimeout parses a grpc-timeout value: at most 8 digits and a unit
// in H, M, S, m, u, n. A value above MaxDelay is clamped to it.
func ParseGRPCTimeout(v string) (time.Duration, error) {
	if len(v) < 2 || len(v) > 9 || !isDigits(v[:len(v)-1]) {
		return 0, fmt.Errorf("headers: grpc-timeout %q: want 1-8 digits and a unit: %w", v, ErrSyntax)
	}
	unit, ok := grpcUnits[v[len(v)-1]]
	if !ok {
		return 0, fmt.Errorf("headers: grpc-timeout %q: unknown unit: %w", v, ErrSyntax)
	}
	n, _ := strconv.ParseInt(v[:len(v)-1], 10, 64) // at most 8 digits: fits
	return unitDelay(n, unit), nil
}

// FormatGRPCTimeout renders d with the finest unit whose value fits in 8
// digits, rounding down (grpc-go rounds up; down keeps the budget honest).
func FormatGRPCTimeout(d time.Duration) string {
	if d <= 0 {
		return "0n"
	}
	for _, u := range []struct {
		unit time.Duration
		c    string
	}{{time.Nanosecond, "n"}, {time.Microsecond, "u"}, {time.Millisecond, "m"}, {time.Second, "S"}, {time.Minute, "M"}, {time.Hour, "H"}} {
		if n := int64(d / u.unit); n < 1e8 {
			return strconv.FormatInt(n, 10) + u.c
		}
	}
	return "99999999H"
}

func parseMillis(name, v string, maxDigits int) (time.Duration, error) {
	if !isDigits(v) || len(v) > maxDigits {
		return 0, fmt.Errorf("headers: %s %q: want a non-negative integer of milliseconds: %w", name, v, ErrSyntax)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil { // only out of range: the digits were checked
		return MaxDelay, nil
	}
	return unitDelay(n, time.Millisecond), nil
}
