package main

import (
	"fmt"
	"slices"
	"sort"
)

// breakName names one convention the service can be told to break, so a
// test can show that the check owning it fails.
type breakName string

// The breaks: each changes exactly one behaviour.
var breaks = map[breakName]string{
	"legacy-key-header":         "read the key from Idempotency-Key instead of X-Idem-Key",
	"no-upstream-key":           "forward no X-Upstream-Key to the ledger",
	"mismatch-422":              "answer 422 instead of 400 to a payload mismatch",
	"ignore-grpc-timeout":       "ignore the caller's grpc-timeout and use the maximum budget",
	"shared-responses":          "store responses per key only, shared across accounts",
	"put-not-idempotent":        "perform every PUT afresh, ignoring its key",
	"probe-off-by-one":          "report one effect more than were made on the probe",
	"ignore-retry-after":        "retry the ledger on the normal backoff, ignoring its Retry-After",
	"key-optional":              "process a request without a key, unprotected",
	"long-key-500":              "fail with 500 on a key longer than 255 characters",
	"no-default-deadline":       "give a request without grpc-timeout no deadline at all",
	"retry-after-past-deadline": "wait out the ledger's Retry-After even past the caller's deadline",
	"invalid-retry-after-stops": "stop retrying when the ledger's Retry-After does not parse",
	// The rate limit (ratelimit.go).
	"empty-429":                     "refuse with a 429 that has no body",
	"lying-retry-after":             "send Retry-After: 0 on a 429, though the quota returns only at the next second",
	"refuses-after-reset":           "keep an account that hit its quota refused for 3 s, past the advertised reset",
	"enforces-more-than-advertised": "admit twice the advertised quota",
	"shared-quota":                  "count every account against one quota",
	"policy-differs-by-route":       `name the quota "quota" on GET /v1/quota and "account" on transfers`,
	"window-zero":                   "advertise w=0, the one-second window counted in whole minutes",
	"window-in-minutes":             "advertise the window as 60 s though the quota is per second",
	"unregistered-unit":             `advertise the quota unit as qu="calls"`,
	"pk-not-bytes":                  "send the partition key as a String, not a Byte Sequence",
	"legacy-malformed":              `send X-RateLimit-Limit as "100, 100;w=1"`,
	"legacy-disagrees":              "send X-RateLimit-Limit per minute (q·60) beside a per-second RateLimit-Policy",
}

func breakNames() []string {
	var names []string
	for n := range breaks {
		names = append(names, string(n))
	}
	sort.Strings(names)
	return names
}

// parseBreak accepts "" (nothing broken) or one known break.
func parseBreak(s string) (breakName, error) {
	if s == "" {
		return "", nil
	}
	if _, ok := breaks[breakName(s)]; !ok {
		return "", fmt.Errorf("conventions: unknown break %q; known: %v", s, breakNames())
	}
	return breakName(s), nil
}

// is reports whether b is one of names.
func (b breakName) is(names ...breakName) bool { return slices.Contains(names, b) }
