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

// TestRaMachine_streak: HS-08p heals a copy whole before its first case
// and after one that did not run; after one that did, it refills what the
// case's failed calls cost, never more than the whole heal.
func TestRaMachine_streak(t *testing.T) {
	t.Parallel()
	h := &check.Harness{Policy: check.Policy{Retry: check.RetryPolicy{MaxAttempts: 3, BudgetRatio: 0.2}}}
	for _, tt := range []struct {
		name string
		m    raMachine
		want int
	}{
		{"first case", raMachine{h: h}, 36},
		{"after a case that did not run", raMachine{h: h, spent: 1}, 36},
		{"after one failed call", raMachine{h: h, known: true, spent: 1}, 10},
		{"after none", raMachine{h: h, known: true}, 10},
		{"after four", raMachine{h: h, known: true, spent: 4}, 20},
		{"after many", raMachine{h: h, known: true, spent: 40}, 36},
	} {
		if got := tt.m.streak(); got != tt.want {
			t.Errorf("%s: streak %d; want %d", tt.name, got, tt.want)
		}
	}
}
