package retryafter

import (
	"testing"

	"github.com/resilcheck/resilcheck/check"
)

// TestRaMachine_streak: HS-08p heals a copy whole before its first case,
// every wholeHealEvery cases, after a case it cannot vouch for, and always
// when the user set the flush; between, it refills what the last case's
// failed calls cost, never more than the whole heal.
func TestRaMachine_streak(t *testing.T) {
	t.Parallel()
	h := &check.Harness{Policy: check.Policy{Retry: check.RetryPolicy{MaxAttempts: 3, BudgetRatio: 0.2}}}
	set := &check.Harness{Policy: h.Policy, Suites: []check.Suite{{Name: Name, Config: Config{BreakerFlush: 50}}}}
	for _, tt := range []struct {
		name string
		m    raMachine
		want int
	}{
		{"first case", raMachine{h: h, cases: 1}, 36},
		{"after a case it cannot vouch for", raMachine{h: h, cases: 2, spent: 1}, 36},
		{"after one failed call", raMachine{h: h, cases: 2, known: true, spent: 1}, 10},
		{"after none", raMachine{h: h, cases: 3, known: true}, 10},
		{"after four", raMachine{h: h, cases: 4, known: true, spent: 4}, 20},
		{"after many", raMachine{h: h, cases: 5, known: true, spent: 40}, 36},
		{"the ninth case", raMachine{h: h, cases: 9, known: true, spent: 1}, 36},
		{"the user's flush", raMachine{h: set, cases: 2, known: true, spent: 1}, 50},
	} {
		if got := tt.m.streak(); got != tt.want {
			t.Errorf("%s: streak %d; want %d", tt.name, got, tt.want)
		}
	}
}
