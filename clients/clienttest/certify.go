// Package clienttest certifies a Go HTTP client from a Go test with the
// client suite of package clients, as net/http/httptest tests a handler:
// in-process, with no subprocess, a failed check being a test error. It
// keeps package testing out of the programs that import clients.
package clienttest

import (
	"testing"

	"github.com/resilcheck/resilcheck/clients"
	"github.com/resilcheck/resilcheck/reports"
)

// Certify runs the client suite against c from a Go test, with no
// subprocess: every failed check is a test error naming what was expected
// and seen, every other verdict is logged. It returns the result for
// further assertions, or nil after a fatal error (the client never reached
// the harness, an invalid policy or scenario).
//
//	func TestMyClient(t *testing.T) {
//		clienttest.Certify(t, clients.Func(func(ctx context.Context, c clients.Call) error {
//			return myclient.New(myclient.MaxRetries(3)).Do(ctx, c.Method, c.URL, c.Key, c.Body)
//		}), clients.Policy{MaxAttempts: 4, Deadline: 10 * time.Second}, clients.Options{})
//	}
func Certify(t testing.TB, c clients.Client, p clients.Policy, opts clients.Options) *clients.Result {
	t.Helper()
	res, err := clients.Run(t.Context(), c, p, opts)
	if err != nil {
		t.Fatalf("clients: %v", err)
		return nil
	}
	for _, ch := range res.Checks {
		if ch.Status == reports.StatusFail {
			t.Errorf("%s %s (%s, %s): expected %s; observed %s", ch.ID, ch.Title, ch.Level, ch.Source, ch.Expected, ch.Observed)
			continue
		}
		t.Logf("%s %s: %s%s", ch.ID, ch.Status, ch.Observed, ch.Reason)
	}
	return res
}
