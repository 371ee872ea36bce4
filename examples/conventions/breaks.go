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
