package clients

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/reports"
)

// testPolicy is what fakeClient declares in the tests.
var testPolicy = Policy{MaxAttempts: 3, Deadline: 4 * time.Second, AttemptTimeout: 500 * time.Millisecond}

// TestRun_catchesBrokenClients certifies the correct fake client (every
// check passes or does not apply) and each broken one (exactly its checks fail).
func TestRun_catchesBrokenClients(t *testing.T) {
	if testing.Short() {
		t.Skip("each variant waits out Retry-After: 1 several times (about 9 s at once)")
	}
	cases := []struct {
		name   string
		broken func(f *fakeClient)
		fail   []string
	}{
		{"correct", func(*fakeClient) {}, nil},
		{"ignore-retry-after", func(f *fakeClient) { f.ignoreRetryAfter = true }, []string{"CL-02", "CL-02a", "CL-02f", "CL-02r"}},
		{"seconds-only", func(f *fakeClient) { f.secondsOnly = true }, []string{"CL-02a", "CL-02f", "CL-02r"}},
		{"new-key-per-attempt", func(f *fakeClient) { f.newKeyPerAttempt = true }, []string{"CL-04"}},
		{"retry-unkeyed-post", func(f *fakeClient) { f.retryUnkeyedPost = true }, []string{"CL-05"}},
		{"retry-4xx", func(f *fakeClient) { f.retry4xx = true }, []string{"CL-06"}},
		{"constant-backoff", func(f *fakeClient) { f.constantBackoff = true }, []string{"CL-07"}},
		{"no-cap", func(f *fakeClient) { f.noCap = true }, []string{"CL-01"}},
		{"always-success", func(f *fakeClient) { f.alwaysSuccess = true }, []string{"CL-09"}},
		{"wait-past-deadline", func(f *fakeClient) { f.waitPastDeadline = true }, []string{"CL-03", "CL-08"}},
		{"no-connection-retry", func(f *fakeClient) { f.noConnectionRetry = true }, []string{"CL-11"}},
	}
	// The variants run at once, not as parallel subtests: -parallel is
	// GOMAXPROCS, and they spend their time waiting, not computing.
	results := make([]*Result, len(cases))
	errs := make([]error, len(cases))
	var wg sync.WaitGroup
	for i, tc := range cases {
		wg.Go(func() {
			f := &fakeClient{policy: testPolicy, base: 200 * time.Millisecond}
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
			var failed []string
			for _, c := range res.Checks {
				switch {
				case c.Status == reports.StatusFail:
					failed = append(failed, c.ID)
				case c.Status != reports.StatusPass && c.Status != reports.StatusNotApplicable:
					t.Errorf("%s %s: %s", c.ID, c.Status, c.Reason)
				}
			}
			if !slices.Equal(failed, tc.fail) {
				for _, c := range res.Checks {
					t.Logf("%-6s %-14s want %s; saw %s %s", c.ID, c.Status, c.Expected, c.Observed, c.Reason)
				}
				t.Errorf("failed %v, want %v", failed, tc.fail)
			}
		})
	}
}
