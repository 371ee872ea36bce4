package suites

const suiteRL = "rate-limit-headers"

// RateLimitConfig tunes the rate-limit-headers suite. Zero values mean the documented defaults.
type RateLimitConfig struct{}

// RateLimitHeaders returns the rate-limit-headers suite.
func RateLimitHeaders() []Check { return nil }
