package suites

const suiteRA = "retry-after"

// RetryAfterConfig tunes the retry-after suite. Zero values mean the documented defaults.
type RetryAfterConfig struct{}

// RetryAfter returns the retry-after suite.
func RetryAfter() []Check { return nil }
