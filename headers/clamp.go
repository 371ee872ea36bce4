package headers

import (
	"math"
	"time"
)

// MaxDelay is the largest duration any parser in this package returns and
// any formatter writes: 2³¹−1 seconds, about 68 years. Larger values saturate
// to it, so a caller can add to a parsed value without overflow, and a client
// that holds delay-seconds in a 32-bit integer reads what was written.
const MaxDelay = math.MaxInt32 * time.Second

// clampDelay bounds d to [0, MaxDelay] and reports whether it was above.
func clampDelay(d time.Duration) (time.Duration, bool) {
	switch {
	case d < 0:
		return 0, false
	case d > MaxDelay:
		return MaxDelay, true
	}
	return d, false
}

// unitDelay converts a non-negative count of unit to a Duration, saturating at MaxDelay instead of wrapping.
func unitDelay(n int64, unit time.Duration) time.Duration {
	if n > int64(MaxDelay/unit) {
		return MaxDelay
	}
	return time.Duration(n) * unit
}
