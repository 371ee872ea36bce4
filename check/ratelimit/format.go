package ratelimit

import (
	"fmt"

	"github.com/resilcheck/resilcheck/check"
)

// draft10Exempt says why RL-01 and RL-07 do not hold the declared routes to
// the draft-10 fields, or "" when they do: a service that declares
// policy.rate_limits.headers draft-10 must send them; one that declares
// legacy or none need not; undeclared, the format is learned from the
// responses of the limited routes (any RateLimit or RateLimit-Policy field,
// even malformed, shows the service speaks the draft).
func draft10Exemption(h *check.Harness, seen []check.Observation) string {
	switch f := h.Policy.RateLimitHeaders; f {
	case "draft-10":
		return ""
	case "legacy", "none":
		return fmt.Sprintf("the target declares policy.rate_limits.headers: %s, not the draft-10 fields", f)
	}
	limited, legacy := 0, 0
	for _, o := range seen {
		if !o.Limited {
			continue
		}
		if o.Advertises() {
			return ""
		}
		limited++
		if o.X.Present() {
			legacy++
		}
	}
	if limited == 0 {
		return "" // the scan itself reports that no limited response was seen
	}
	return fmt.Sprintf("none of %d responses of the declared rate-limited routes carried RateLimit or RateLimit-Policy (%d carried X-RateLimit-*), "+
		"and policy.rate_limits.headers does not declare draft-10: the service neither declares nor shows that format", limited, legacy)
}
