// Package headers parses and formats the HTTP fields the resilience contracts
// speak: Retry-After (RFC 9110 §10.2.3), relative deadline headers
// (X-Request-Timeout-Ms, grpc-timeout, Envoy's timeout headers) and the rate
// limit fields (IETF RateLimit/RateLimit-Policy draft -10, X-RateLimit-*).
//
// Parsers are strict: they accept exactly what the grammar allows and return
// an error wrapping ErrSyntax otherwise, so callers can both honour a valid
// value and report an invalid one. They are also bounded: a duration
// saturates at MaxDelay rather than overflowing, and a structured field with
// more members or parameters than MaxSFMembers, MaxSFInnerItems or
// MaxSFParams is refused, so parsing time stays linear in the field's length.
//
//	d, err := headers.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
//	budget, ok, err := headers.Timeout(req.Header)
package headers

import "errors"

// ErrSyntax is wrapped by every parse error in this package.
var ErrSyntax = errors.New("invalid header syntax")
