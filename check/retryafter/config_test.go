package retryafter

import (
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
)

func TestRetryAfterConfig_flushWithin(t *testing.T) {
	t.Parallel()
	h := &check.Harness{Policy: check.Policy{Retry: check.RetryPolicy{BreakerRecovery: 30 * time.Second}}}
	if got := config(h).flushWithin(h); got != 32*time.Second {
		t.Errorf("with a 30 s breaker: flushWithin %s; want 32s", got)
	}
}
