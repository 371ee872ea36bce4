package retryafter

import (
	"fmt"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
)

// TestRaJudgePushback_attempts: HS-09g counts the attempts made for the
// request while the client waited, whatever their keys, and any later
// call with the refused call's key; a hedged copy sent before the refusal
// arrived is no retry, one the declared hedging sent after it is, unless
// the runner was late.
func TestRaJudgePushback_attempts(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	refused := func(from, to int, key string) faults.Entry {
		return faults.Entry{ID: fmt.Sprint("dependency-", from), Side: "dependency", Method: "POST", Rule: "r1",
			Received: ms(from), Finished: ms(to), Status: 200, Headers: map[string]string{"Idempotency-Key": key},
			ResponseHeaders: map[string]string{"Grpc-Status": "14", "Grpc-Retry-Pushback-Ms": "-1"}}
	}
	outcome := func(calls ...faults.Entry) raDepOutcome {
		return raDepOutcome{reply: raStamped{sent: ms(-5), at: ms(400)}, calls: calls, faulted: &calls[0], evidence: calls, keyHeader: "Idempotency-Key"}
	}
	base := outcome(refused(0, 1, "b"), refused(20, 21, "b"))
	plain := &check.Harness{Tolerance: 50 * time.Millisecond}
	hedging := func(d time.Duration) *check.Harness {
		return &check.Harness{Tolerance: 50 * time.Millisecond, Policy: check.Policy{Hedging: check.HedgingPolicy{Delay: d}}}
	}
	for _, tc := range []struct {
		name string
		h    *check.Harness
		o    raDepOutcome
		want reports.Status
	}{
		{"one call", plain, outcome(refused(0, 1, "k")), reports.StatusPass},
		{"a hedge sent before the refusal arrived", hedging(15 * time.Millisecond), outcome(refused(0, 30, "k"), refused(15, 31, "k")), reports.StatusPass},
		{"a retry with a fresh key", plain, outcome(refused(0, 1, "k-0"), refused(20, 21, "k-1")), reports.StatusFail},
		{"a retry with the key after the answer", plain, outcome(refused(0, 1, "k"), refused(450, 451, "k")), reports.StatusFail},
		{"another request's call after the answer", plain, outcome(refused(0, 1, "k"), refused(450, 451, "x")), reports.StatusPass},
		{"a copy on the hedging schedule after the refusal, the runner on time", hedging(300 * time.Millisecond),
			outcome(refused(0, 1, "k"), refused(305, 306, "k")), reports.StatusFail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := raJudgePushback(tc.h, "one attempt", base, tc.o, check.Stalls{})
			if res.Status != tc.want {
				t.Fatalf("status %s, want %s; observed %q, reason %q", res.Status, tc.want, res.Observed, res.Reason)
			}
			if res.Status == reports.StatusFail && res.Margin != check.NotTimed {
				t.Errorf("margin %s: a count of calls is no timed failure", res.Margin)
			}
		})
	}
}
