package headers

import (
	"strconv"
	"time"
)

// Rate limit field names: the IETF draft -10 pair and the legacy set.
const (
	RateLimitPolicy     = "RateLimit-Policy"
	RateLimit           = "RateLimit"
	XRateLimitLimit     = "X-RateLimit-Limit"
	XRateLimitRemaining = "X-RateLimit-Remaining"
	XRateLimitReset     = "X-RateLimit-Reset"
)

// FormatRateLimitPolicy renders one draft -10 policy item, e.g.
// `"tenant";q=50;w=1`. The window is in whole seconds, at least one.
func FormatRateLimitPolicy(name string, quota int64, window time.Duration) string {
	w := int64(window / time.Second)
	if w < 1 {
		w = 1
	}
	return strconv.Quote(name) + ";q=" + strconv.FormatInt(quota, 10) + ";w=" + strconv.FormatInt(w, 10)
}

// FormatRateLimit renders one draft -10 RateLimit item, e.g.
// `"tenant";r=7;t=1`, with reset rounded up to whole seconds.
func FormatRateLimit(name string, remaining int64, reset time.Duration) string {
	if remaining < 0 {
		remaining = 0
	}
	return strconv.Quote(name) + ";r=" + strconv.FormatInt(remaining, 10) + ";t=" + FormatRetryAfter(reset)
}
