package clienttest

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/resilcheck/resilcheck/clients"
	"github.com/resilcheck/resilcheck/reports"
)

// recorder is a testing.TB that keeps the errors it is given.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Errorf(format string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, a...))
}
func (r *recorder) Logf(string, ...any) {}
func (r *recorder) Helper()             {}

// once is a client that never retries: one attempt, a failure unless it
// was answered 2xx.
func once(ctx context.Context, c clients.Call) error {
	req, err := http.NewRequestWithContext(ctx, c.Method, c.URL, strings.NewReader(c.Body))
	if err != nil {
		return err
	}
	if c.Key != "" {
		req.Header.Set(c.KeyHeader, c.Key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

// TestCertify: a client that never retries gets one test error for each
// check it fails, CL-10 and CL-11 (503s and resets not retried), naming
// what was expected and seen.
func TestCertify(t *testing.T) {
	t.Parallel()
	r := &recorder{TB: t}
	res := Certify(r, clients.Func(once), clients.Policy{MaxAttempts: 3}, clients.Options{})
	if res == nil {
		t.Fatal("no result")
	}
	var failed, named []string
	for _, c := range res.Checks {
		if c.Status == reports.StatusFail {
			failed = append(failed, c.ID)
		}
	}
	for _, e := range r.errs {
		id, _, _ := strings.Cut(e, " ")
		named = append(named, id)
		if !strings.Contains(e, "expected ") || !strings.Contains(e, "; observed ") {
			t.Errorf("error %q does not say what was expected and seen", e)
		}
	}
	if want := []string{"CL-10", "CL-11"}; !slices.Equal(failed, want) || !slices.Equal(named, want) {
		t.Errorf("failed %v, test errors for %v; want both %v", failed, named, want)
	}
}
