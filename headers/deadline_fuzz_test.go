package headers

import (
	"errors"
	"net/http"
	"testing"
	"time"
)

var deadlineHeaders = []string{RequestTimeoutMs, GRPCTimeout, EnvoyUpstreamRqMs, EnvoyExpectedRqMs}

// FuzzTimeout: a budget read from any deadline header lies in [0, MaxDelay],
// an error wraps ErrSyntax, and writing the budget back in the same header
// reads as no more than it (never more time than the sender had).
func FuzzTimeout(f *testing.F) {
	for i, v := range []string{"250", "0", "999999999999999999", "-5", "1.5", "2S", "99999999H", "123456789m", "10x", "1n", ""} {
		f.Add(uint8(i), v)
	}
	f.Fuzz(func(t *testing.T, which uint8, v string) {
		name := deadlineHeaders[int(which)%len(deadlineHeaders)]
		d, ok, err := Timeout(http.Header{name: {v}})
		switch {
		case err != nil && !errors.Is(err, ErrSyntax):
			t.Fatalf("Timeout(%s: %q) error %v does not wrap ErrSyntax", name, v, err)
		case err != nil || !ok:
			return
		case d < 0 || d > MaxDelay:
			t.Fatalf("Timeout(%s: %q) = %s: outside [0, MaxDelay]", name, v, d)
		}
		h := http.Header{}
		SetTimeout(h, name, d)
		back, ok, err := Timeout(h)
		if err != nil || !ok || back > d || (name != GRPCTimeout && back != d.Truncate(time.Millisecond)) {
			t.Fatalf("Timeout(%s: %q) = %s; written back as %q, read %s, %v", name, v, d, h.Get(name), back, err)
		}
	})
}
