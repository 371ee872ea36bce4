package retryafter

import (
	"testing"
	"time"
)

// TestRaSenderValue_overflow: a Retry-After a client cannot hold (beyond
// 2³¹−1 seconds) or one that wrapped negative fails HS-01.
func TestRaSenderValue_overflow(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		in string
		ok bool
	}{
		{"2147483647", true},
		{"2147483648", false},
		{"99999999999", false},
		{"-9223372035", false},
		{"Fri, 31 Dec 9999 23:59:59 GMT", false},
	} {
		if _, err := raSenderValue(c.in, now); (err == nil) != c.ok {
			t.Errorf("raSenderValue(%q) error = %v; want ok=%v", c.in, err, c.ok)
		}
	}
}
