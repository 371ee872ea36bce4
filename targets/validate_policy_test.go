package targets

import (
	"os"
	"reflect"
	"regexp"
	"testing"
	"time"
)

// TestParse_initPolicy uncomments init.yaml's policy section: the example a
// new user edits must itself be a valid policy.
func TestParse_initPolicy(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("init.yaml")
	if err != nil {
		t.Fatal(err)
	}
	i := regexp.MustCompile(`(?m)^# policy:`).FindIndex(data)
	if i == nil {
		t.Fatal("init.yaml has no commented policy section")
	}
	section := regexp.MustCompile(`(?m)^# ?`).ReplaceAll(data[i[0]:], nil)
	tg, err := Parse("init.yaml", append(append([]byte{}, data[:i[0]]...), section...))
	if err != nil {
		t.Fatalf("init.yaml with its policy uncommented: %v\n%s", err, section)
	}
	r := tg.Policy.Retry
	if r.MaxAttempts != 3 || r.Backoff != BackoffFull || r.Base != 50*time.Millisecond || r.Cap != time.Second ||
		len(tg.Policy.RateLimits.Operations) != 1 || tg.Policy.RateLimits.Probe != "/v1/limits" {
		t.Errorf("decoded policy %+v", tg.Policy)
	}
}

func TestParse_policy(t *testing.T) {
	t.Parallel()
	tg, err := Load("testdata/good/policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := Policy{
		Retry: RetryPolicy{MaxAttempts: 5, Backoff: BackoffExponential, Base: time.Second, Cap: 8 * time.Second,
			Jitter: 0.1, BudgetRatio: 0.2, BreakerRecovery: 30 * time.Second},
		Deadlines:   DeadlinePolicy{Headers: []string{"GRPC-Timeout", "x-envoy-expected-rq-timeout-ms"}},
		RateLimits:  RateLimitPolicy{Operations: []string{"create"}, Probe: "/v1/limits", Headers: RateLimitLegacy},
		Idempotency: IdempotencyPolicy{Operations: []string{"create", "capture"}, KeyRequired: new(false)},
		Hedging:     HedgingPolicy{Delay: 150 * time.Millisecond, MaxCopies: 3, Budget: 0.05},
		Throttling:  ThrottlingPolicy{K: 2, MaxRejection: 0.9, Recovery: 5 * time.Second},
	}
	if !reflect.DeepEqual(tg.Policy, want) {
		t.Errorf("Policy = %+v\nwant %+v", tg.Policy, want)
	}
}
