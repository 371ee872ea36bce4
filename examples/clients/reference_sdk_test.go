package clients_test

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/clients"
	"github.com/resilcheck/resilcheck/internal/reference/client"
	"github.com/resilcheck/resilcheck/internal/reference/defect"
	"github.com/resilcheck/resilcheck/internal/reference/target"
	"github.com/resilcheck/resilcheck/reports"
)

// referenceSDK is a call through the reference stack's Go SDK with its
// defaults (4 attempts, a 2 s attempt timeout, a 10 s deadline) but full
// jitter from 500 ms rather than 100 ms, waits long enough for a shared
// runner to judge (CL-07, CL-13), and hedging after 300 ms (CL-14 to
// CL-16): GET reads a payment, POST creates one.
func referenceSDK(ctx context.Context, c clients.Call) error {
	return sdkCall(ctx, c)
}

// sdkCall is referenceSDK with more options. Each scenario instance seeds
// its client's jitter from its name, as a fleet gives each client its own
// seed: the waits are the same in every run, so whether the backoff
// scenario's medians are long enough to judge is not left to chance.
func sdkCall(ctx context.Context, c clients.Call, opts ...client.Option) error {
	base := []client.Option{client.WithBackoff(500*time.Millisecond, 4*time.Second), client.WithSeedFrom(c.Scenario),
		client.WithHedging(300*time.Millisecond, 2)}
	sdk, err := client.New(c.Base, append(base, opts...)...)
	if err != nil {
		return err
	}
	if c.Method == http.MethodPost {
		_, err = sdk.CreatePayment(ctx, client.PaymentRequest{Amount: 100, Currency: "EUR", Key: c.Key})
		return err
	}
	_, err = sdk.GetPayment(ctx, "p-1")
	return err
}

// sdkPolicy is what the SDK declares with its defaults.
var sdkPolicy = clients.Policy{MaxAttempts: client.DefaultMaxAttempts, Deadline: client.DefaultDeadline, AttemptTimeout: client.DefaultAttemptTimeout,
	HedgeDelay: 300 * time.Millisecond, HedgeCopies: 2}

// TestReferenceSDK certifies the reference SDK in-process: it retries the
// way clients should, so nothing fails.
func TestReferenceSDK(t *testing.T) {
	t.Parallel()
	certifyAgainst(t, "reference-sdk", clients.Func(referenceSDK), sdkPolicy)
}

// TestReferenceSDK_defects certifies the SDK once per defect it can switch
// on (defect.Client): the checks target.ClientMatrix names fail, and every
// other ends as for the correct SDK (reference-sdk/expectations.yaml).
func TestReferenceSDK_defects(t *testing.T) {
	if testing.Short() {
		t.Skip("certifies the SDK ten times: waits out Retry-After and backoffs")
	}
	t.Parallel()
	green := expectations(t, "reference-sdk")
	matrix := target.ClientMatrix()
	for _, d := range defect.Client() {
		t.Run(string(d.Name), func(t *testing.T) {
			t.Parallel()
			want, ok := matrix[d.Name]
			if !ok || len(want.Must) == 0 {
				t.Fatalf("target.ClientMatrix names no check that catches %s", d.Name)
			}
			// A day-long Retry-After clipped to 12 s (not the default
			// 30 s) overruns the 10 s deadline as surely, and sooner.
			opts := []client.Option{client.WithDefects(defect.Set{d.Name: true}), client.WithMaxRetryAfter(12 * time.Second)}
			call := func(ctx context.Context, c clients.Call) error { return sdkCall(ctx, c, opts...) }
			res, err := clients.Run(context.Background(), clients.Func(call), sdkPolicy, clients.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var failed, noisy []string
			for _, ch := range res.Checks {
				if ch.Status == reports.StatusFail {
					failed = append(failed, ch.ID)
				}
				allowed := green.Allowed(ch.ID)
				if slices.Contains(want.Must, ch.ID) {
					allowed = []reports.Status{reports.StatusFail}
				} else if slices.Contains(want.May, ch.ID) {
					allowed = append(slices.Clone(allowed), reports.StatusFail)
				} else if slices.Contains(want.Vacuous, ch.ID) {
					allowed = []reports.Status{reports.StatusInconclusive}
				}
				if noisyInstead(allowed, ch) {
					noisy = append(noisy, ch.ID)
					t.Logf("%s %s: %s", ch.ID, ch.Status, ch.Reason)
					continue
				}
				if !slices.Contains(allowed, ch.Status) {
					t.Errorf("%s %s, want %v: expected %s; observed %s%s", ch.ID, ch.Status, allowed, ch.Expected, ch.Observed, ch.Reason)
				}
			}
			if len(noisy) > maxNoisy {
				t.Errorf("%d checks inconclusive on a noisy runner (%v), more than the %d a busy CI runner explains", len(noisy), noisy, maxNoisy)
			}
			t.Logf("%s: failed %v", d.Name, failed)
		})
	}
}
