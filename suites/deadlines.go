package suites

const suiteDL = "deadlines"

// DeadlineConfig tunes the deadlines suite. Zero values mean the documented defaults.
type DeadlineConfig struct{}

// Deadlines returns the deadlines suite.
func Deadlines() []Check { return nil }
