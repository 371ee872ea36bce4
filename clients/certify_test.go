package clients

import (
	"fmt"
	"strings"
	"testing"
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

// TestCertify: a client that retries a keyless POST gets exactly one test
// error, naming CL-05 and what was seen.
func TestCertify(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out Retry-After: 1 several times")
	}
	t.Parallel()
	r := &recorder{TB: t}
	res := Certify(r, &fakeClient{policy: testPolicy, base: 300e6, retryUnkeyedPost: true}, testPolicy, Options{})
	if res == nil {
		t.Fatal("no result")
	}
	if len(r.errs) != 1 || !strings.HasPrefix(r.errs[0], "CL-05 ") || !strings.Contains(r.errs[0], "unkeyed-post") {
		t.Errorf("errors %q; want one for CL-05 in unkeyed-post", r.errs)
	}
}
