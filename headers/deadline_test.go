package headers

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"pgregory.net/rapid"
)

func TestTimeout(t *testing.T) {
	t.Parallel()
	cases := []struct {
		h      http.Header
		want   time.Duration
		ok     bool
		syntax bool
	}{
		{http.Header{}, 0, false, false},
		{http.Header{"X-Request-Timeout-Ms": {"250"}}, 250 * time.Millisecond, true, false},
		{http.Header{"X-Request-Timeout-Ms": {"0"}}, 0, true, false},
		{http.Header{"Grpc-Timeout": {"2S"}}, 2 * time.Second, true, false},
		{http.Header{"X-Request-Timeout-Ms": {"100"}, "Grpc-Timeout": {"2S"}}, 100 * time.Millisecond, true, false},
		{http.Header{"X-Envoy-Expected-Rq-Timeout-Ms": {"900"}}, 900 * time.Millisecond, true, false},
		{http.Header{"X-Request-Timeout-Ms": {"-5"}}, 0, false, true},
		{http.Header{"X-Request-Timeout-Ms": {"1.5"}}, 0, false, true},
		{http.Header{"Grpc-Timeout": {"123456789m"}}, 0, false, true},
		{http.Header{"Grpc-Timeout": {"10x"}}, 0, false, true},
	}
	for _, c := range cases {
		got, ok, err := Timeout(c.h)
		if got != c.want || ok != c.ok || errors.Is(err, ErrSyntax) != c.syntax {
			t.Errorf("Timeout(%v) = %s, %v, %v; want %s, %v, syntax error %v", c.h, got, ok, err, c.want, c.ok, c.syntax)
		}
	}
}

func TestFormatGRPCTimeout_roundTrip(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		d := time.Duration(rapid.Int64Range(1, int64(1000*time.Hour)).Draw(t, "d"))
		s := FormatGRPCTimeout(d)
		got, err := ParseGRPCTimeout(s)
		if err != nil {
			t.Fatalf("FormatGRPCTimeout(%s) = %q does not parse: %v", d, s, err)
		}
		// The next coarser unit is 1000x, so at least 5 significant digits survive.
		if got > d || float64(d-got) > float64(d)*1e-5 {
			t.Fatalf("FormatGRPCTimeout(%s) = %q, parsed back as %s", d, s, got)
		}
	})
}

func TestSetTimeout(t *testing.T) {
	t.Parallel()
	h := http.Header{}
	SetTimeout(h, RequestTimeoutMs, 1500*time.Microsecond*1000+999*time.Microsecond)
	if got := h.Get(RequestTimeoutMs); got != "1500" {
		t.Errorf("SetTimeout ms = %q; want 1500 (rounded down)", got)
	}
	SetTimeout(h, "grpc-timeout", -time.Second)
	if got := h.Get(GRPCTimeout); got != "0n" {
		t.Errorf("SetTimeout grpc negative = %q; want 0n", got)
	}
}
