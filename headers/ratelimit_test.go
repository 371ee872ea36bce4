package headers

import (
	"testing"
	"time"
)

func TestFormatRateLimit(t *testing.T) {
	t.Parallel()
	if got := FormatRateLimitPolicy("tenant", 50, time.Second); got != `"tenant";q=50;w=1` {
		t.Errorf("FormatRateLimitPolicy = %q", got)
	}
	if got := FormatRateLimit("tenant", -3, 1200*time.Millisecond); got != `"tenant";r=0;t=2` {
		t.Errorf("FormatRateLimit = %q", got)
	}
}
