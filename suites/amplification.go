package suites

const suiteRB = "retry-amplification"

// AmplificationConfig tunes the retry-amplification suite. Zero values mean the documented defaults.
type AmplificationConfig struct{}

// Amplification returns the retry-amplification suite.
func Amplification() []Check { return nil }
