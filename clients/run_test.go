package clients

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/reports"
)

// testPolicy is what fakeClient declares in the tests.
var testPolicy = Policy{MaxAttempts: 4, Deadline: 5 * time.Second, AttemptTimeout: 1500 * time.Millisecond}

// TestRun_catchesBrokenClients certifies the correct fake client (every
// check passes or does not apply) and each broken one (exactly its checks fail).
func TestRun_catchesBrokenClients(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("each variant waits out Retry-After: 1 several times (about 9 s at once)")
	}
	cases := []struct {
		name   string
		broken func(f *fakeClient)
		fail   []string
		// inconclusive lists the checks the variant leaves nothing to judge.
		inconclusive []string
	}{
		{"correct", func(*fakeClient) {}, nil, nil},
		{"ignore-retry-after", func(f *fakeClient) { f.ignoreRetryAfter = true }, []string{"CL-02", "CL-02a", "CL-02f", "CL-02r"}, nil},
		{"seconds-only", func(f *fakeClient) { f.secondsOnly = true }, []string{"CL-02a", "CL-02f", "CL-02r"}, nil},
		{"new-key-per-attempt", func(f *fakeClient) { f.newKeyPerAttempt = true }, []string{"CL-04"}, nil},
		{"retry-unkeyed-post", func(f *fakeClient) { f.retryUnkeyedPost = true }, []string{"CL-05"}, nil},
		{"retry-4xx", func(f *fakeClient) { f.retry4xx = true }, []string{"CL-06"}, nil},
		{"constant-backoff", func(f *fakeClient) { f.constantBackoff = true }, []string{"CL-07"}, nil},
		{"no-cap", func(f *fakeClient) { f.noCap = true }, []string{"CL-01"}, nil},
		{"always-success", func(f *fakeClient) { f.alwaysSuccess = true }, []string{"CL-09"}, nil},
		{"wait-past-deadline", func(f *fakeClient) { f.waitPastDeadline = true }, []string{"CL-03", "CL-08", "CL-12"}, nil},
		{"no-connection-retry", func(f *fakeClient) { f.noConnectionRetry = true }, []string{"CL-11"}, nil},
		{"no-jitter", func(f *fakeClient) { f.noJitter = true }, []string{"CL-13"}, nil},
		{"fresh-budget", func(f *fakeClient) { f.freshBudget = true }, []string{"CL-12"}, nil},
		{"final-429", func(f *fakeClient) { f.final429 = true }, []string{"CL-10"}, []string{"CL-02f"}},
	}
	// The variants run at once, not as parallel subtests: -parallel is
	// GOMAXPROCS, and they spend their time waiting, not computing.
	results := make([]*Result, len(cases))
	errs := make([]error, len(cases))
	var wg sync.WaitGroup
	for i, tc := range cases {
		wg.Go(func() {
			f := &fakeClient{policy: testPolicy, base: 300 * time.Millisecond}
			tc.broken(f)
			results[i], errs[i] = Run(context.Background(), f, testPolicy, Options{})
		})
	}
	wg.Wait()
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := results[i], errs[i]
			if err != nil {
				t.Fatal(err)
			}
			var failed, inconclusive []string
			for _, c := range res.Checks {
				switch c.Status {
				case reports.StatusFail:
					failed = append(failed, c.ID)
				case reports.StatusInconclusive:
					inconclusive = append(inconclusive, c.ID)
				}
			}
			if !slices.Equal(failed, tc.fail) || !slices.Equal(inconclusive, tc.inconclusive) {
				for _, c := range res.Checks {
					t.Logf("%-6s %-14s want %s; saw %s %s", c.ID, c.Status, c.Expected, c.Observed, c.Reason)
				}
				t.Errorf("failed %v, inconclusive %v; want %v and %v", failed, inconclusive, tc.fail, tc.inconclusive)
			}
		})
	}
}

// TestRun_invalid: a policy, check or scenario Run cannot use is ErrInvalid,
// found before any call, so callers tell it from a failure while running.
func TestRun_invalid(t *testing.T) {
	never := Func(func(context.Context, Call) error { t.Error("the client was called"); return nil })
	for _, c := range []struct {
		name string
		p    Policy
		opts Options
	}{
		{"negative attempts", Policy{MaxAttempts: -1}, Options{}},
		{"unknown check", Policy{MaxAttempts: 3}, Options{Checks: []string{"CL-99"}}},
		{"bad scenario", Policy{MaxAttempts: 3}, Options{Scenarios: []Scenario{{ID: ""}}}},
	} {
		if _, err := Run(t.Context(), never, c.p, c.opts); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v; want ErrInvalid", c.name, err)
		}
	}
}
