package gateway_test

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/headers"
	"github.com/resilcheck/resilcheck/internal/reference/defect"
	"github.com/resilcheck/resilcheck/internal/reference/gateway"
)

// A probe checks one gateway contract with the given defects enabled and
// returns the first violation, or nil.
type probe func(t *testing.T, d defect.Set) error

var probes = map[string]probe{
	"no-retry":             probeNoRetry,
	"retry-after":          probeRetryAfter,
	"ratelimit-headers":    probeRateLimitHeaders,
	"ratelimit-truthful":   probeRateLimitTruthful,
	"ratelimit-enforced":   probeRateLimitEnforced,
	"ratelimit-per-tenant": probeRateLimitPerTenant,
	"deadline-propagated":  probeDeadlinePropagated,
	"deadline-enforced":    probeDeadlineEnforced,
}

// TestGateway_Defects shows each gateway defect breaks its one contract and
// leaves every other probe passing.
func TestGateway_Defects(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		defect defect.Name
		breaks string
	}{
		{"", ""},
		{defect.RetryEveryTier, "no-retry"},
		{defect.NoRetryAfterHeader, "retry-after"},
		{defect.BadRetryAfter, "retry-after"},
		{defect.NoDeadlinePropagation, "deadline-propagated"},
		{defect.NoRateLimitHeaders, "ratelimit-headers"},
		{defect.LyingRateLimitRemaining, "ratelimit-truthful"},
		{defect.SharedRateLimitRemaining, "ratelimit-per-tenant"},
	} {
		t.Run(cmp.Or(string(tc.defect), "none"), func(t *testing.T) {
			t.Parallel()
			set := defect.Set{}
			if tc.defect != "" {
				set[tc.defect] = true
			}
			for _, name := range slices.Sorted(maps.Keys(probes)) {
				err := probes[name](t, set)
				if name == tc.breaks && err == nil {
					t.Errorf("%s: want a violation, the contract held", name)
				}
				if name != tc.breaks && err != nil {
					t.Errorf("%s: %v", name, err)
				}
				if err != nil {
					t.Logf("%s: %v", name, err)
				}
			}
		})
	}
}

func unavailable(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Retry-After", "2")
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = io.WriteString(w, `{"status":503}`)
}

func probeNoRetry(t *testing.T, d defect.Set) error {
	svc := newService(t, unavailable)
	gw := serve(t, newGateway(t, svc.URL, gateway.WithDefects(d)))
	send(t, "POST", gw.URL+"/v1/payments", `{}`, map[string]string{"Idempotency-Key": `"k"`})
	if n := len(svc.requests()); n != 1 {
		return fmt.Errorf("a POST answered 503 reached the service %d times, want 1", n)
	}
	return nil
}

func probeRetryAfter(t *testing.T, d defect.Set) error {
	clk := newClock()
	gw := newGateway(t, noService, gateway.WithDefects(d), gateway.WithRateLimit(1, 1), gateway.WithClock(clk.Now))
	do(gw, "GET", "/healthz", "")
	resp := do(gw, "GET", "/healthz", "")
	ra, err := retryAfterSeconds(resp.Header)
	if resp.StatusCode != http.StatusTooManyRequests || err != nil {
		return fmt.Errorf("429: status %d, %v", resp.StatusCode, err)
	}
	if l, err := parseLimits(resp.Header, clk.Now()); err == nil && ra < l.T {
		return fmt.Errorf("429: Retry-After %d before t=%d", ra, l.T)
	}
	clk.Advance(time.Duration(ra) * time.Second)
	if resp := do(gw, "GET", "/healthz", ""); resp.StatusCode != http.StatusOK {
		return fmt.Errorf("after Retry-After %d s: status %d", ra, resp.StatusCode)
	}
	svc := newService(t, unavailable)
	proxied := serve(t, newGateway(t, svc.URL, gateway.WithDefects(d)))
	if resp, _ := send(t, "POST", proxied.URL+"/v1/payments", `{}`, nil); resp.Header.Get("Retry-After") != "2" {
		return fmt.Errorf("the service's 503 Retry-After: 2 arrived as %q", resp.Header.Get("Retry-After"))
	}
	return nil
}

func probeRateLimitHeaders(t *testing.T, d defect.Set) error {
	clk := newClock()
	gw := newGateway(t, noService, gateway.WithDefects(d), gateway.WithRateLimit(1, 1), gateway.WithClock(clk.Now))
	for _, want := range []int{200, 429, 429} {
		resp := do(gw, "GET", "/healthz", "")
		if _, err := parseLimits(resp.Header, clk.Now()); err != nil {
			return fmt.Errorf("%d: %w", want, err)
		}
	}
	return nil
}

// probeRateLimitTruthful is the sequential-client rule: refused exactly
// when the previous answer said r=0 (no boundary passes here). Absent
// fields advertise nothing, so they cannot lie.
func probeRateLimitTruthful(t *testing.T, d defect.Set) error {
	clk := newClock()
	gw := newGateway(t, noService, gateway.WithDefects(d), gateway.WithRateLimit(5, 5), gateway.WithClock(clk.Now))
	prev := int64(-1)
	for i := range 8 {
		resp := do(gw, "GET", "/healthz", "")
		if resp.Header.Get(headers.RateLimit) == "" {
			return nil
		}
		limited := resp.StatusCode == http.StatusTooManyRequests
		if prev >= 0 && limited != (prev == 0) {
			return fmt.Errorf("request %d: 429=%v after remaining %d", i, limited, prev)
		}
		l, err := parseLimits(resp.Header, clk.Now())
		if err != nil {
			return err
		}
		prev = l.R
	}
	return nil
}

func probeRateLimitEnforced(t *testing.T, d defect.Set) error {
	clk := newClock()
	gw := newGateway(t, noService, gateway.WithDefects(d), gateway.WithRateLimit(5, 5), gateway.WithClock(clk.Now))
	for i := range 7 {
		if got, want := do(gw, "GET", "/healthz", "").StatusCode, map[bool]int{true: 200, false: 429}[i < 5]; got != want {
			return fmt.Errorf("request %d: status %d, want %d", i, got, want)
		}
	}
	return nil
}

// probeRateLimitPerTenant: within one second, tenant A's remaining falls
// by one for its own request however many tenant B sent in between.
func probeRateLimitPerTenant(t *testing.T, d defect.Set) error {
	clk := newClock()
	gw := newGateway(t, noService, gateway.WithDefects(d), gateway.WithRateLimit(10, 10), gateway.WithClock(clk.Now))
	remaining := func(tenant string) (int64, bool) {
		resp := do(gw, "GET", "/healthz", tenant)
		l, err := parseLimits(resp.Header, clk.Now())
		return l.R, err == nil
	}
	before, ok := remaining("a")
	if !ok {
		return nil // no fields: ratelimit-headers' concern
	}
	for range 4 {
		remaining("b")
	}
	if after, _ := remaining("a"); after < before-1 {
		return fmt.Errorf("tenant a's remaining fell from %d to %d over one request of its own and 4 of tenant b's", before, after)
	}
	return nil
}

func probeDeadlinePropagated(t *testing.T, d defect.Set) error {
	svc := newService(t, created)
	gw := serve(t, newGateway(t, svc.URL, gateway.WithDefects(d)))
	send(t, "POST", gw.URL+"/v1/payments", `{}`, map[string]string{headers.RequestTimeoutMs: "5000"})
	got, ok, err := headers.Timeout(svc.requests()[0].Header)
	if !ok || err != nil || got <= 0 || got >= 5*time.Second {
		return fmt.Errorf("sent 5000 ms, the service got %s (present %v, %v)", got, ok, err)
	}
	return nil
}

func probeDeadlineEnforced(t *testing.T, d defect.Set) error {
	svc, _ := hanging(t)
	gw := serve(t, newGateway(t, svc.URL, gateway.WithDefects(d)))
	if resp, _ := send(t, "POST", gw.URL+"/v1/payments", `{}`, map[string]string{headers.RequestTimeoutMs: "100"}); resp.StatusCode != http.StatusGatewayTimeout {
		return fmt.Errorf("a hanging service with a 100 ms budget gave %d, want 504", resp.StatusCode)
	}
	return nil
}
