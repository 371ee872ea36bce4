package suites

import (
	"testing"
	"time"
)

func TestRetryAfterConfig_flushWithin(t *testing.T) {
	t.Parallel()
	h := &Harness{Policy: Policy{Retry: RetryPolicy{BreakerRecovery: 30 * time.Second}}}
	if got := raConfig(h).flushWithin(h); got != 32*time.Second {
		t.Errorf("with a 30 s breaker: flushWithin %s; want 32s", got)
	}
}
