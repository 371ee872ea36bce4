package gateway_test

import (
	"encoding/json"
	"math"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"pgregory.net/rapid"

	"github.com/resilcheck/resilcheck/internal/reference/gateway"
)

const noService = "http://127.0.0.1:1" // rate-limit tests never reach the service

func TestGateway_RateLimitSequence(t *testing.T) {
	t.Parallel()
	clk := newClock()
	gw := newGateway(t, noService, gateway.WithClock(clk.Now))
	for i := range 50 {
		resp := do(gw, "GET", "/healthz", "acme")
		l, err := parseLimits(resp.Header, clk.Now())
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d: status %d, %v", i, resp.StatusCode, err)
		}
		if l.Q != 50 || l.W != 1 || l.R != int64(49-i) || l.T != 1 {
			t.Fatalf("request %d: q=%d w=%d r=%d t=%d; want q=50 w=1 r=%d t=1", i, l.Q, l.W, l.R, l.T, 49-i)
		}
	}
	resp := do(gw, "GET", "/healthz", "acme")
	l, err := parseLimits(resp.Header, clk.Now())
	if err != nil || resp.StatusCode != http.StatusTooManyRequests || l.R != 0 {
		t.Fatalf("51st: status %d r=%d err %v; want 429 r=0", resp.StatusCode, l.R, err)
	}
	ra, err := retryAfterSeconds(resp.Header)
	if err != nil || ra < l.T || ra != 1 {
		t.Fatalf("51st: Retry-After %d (%v), t=%d; want 1 and >= t", ra, err, l.T)
	}
	var p gateway.Problem
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil || p.Status != 429 || p.Type != gateway.ProblemQuotaExceeded ||
		len(p.ViolatedPolicies) != 1 || p.ViolatedPolicies[0] != "tenant" || resp.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("429 body %+v (%v), Content-Type %q", p, err, resp.Header.Get("Content-Type"))
	}
	clk.Advance(time.Duration(ra) * time.Second)
	if resp := do(gw, "GET", "/healthz", "acme"); resp.StatusCode != http.StatusOK {
		t.Fatalf("after Retry-After: status %d, want 200", resp.StatusCode)
	}
}

// TestGateway_RetryAfterTruthful runs on synctest's fake time with the
// default clock: a request sent as soon as Retry-After elapses is admitted.
func TestGateway_RetryAfterTruthful(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		gw := newGateway(t, noService, gateway.WithRateLimit(2, 4))
		time.Sleep(300 * time.Millisecond) // start between two boundaries
		for round := range 3 {
			var resp *http.Response
			for resp = do(gw, "GET", "/healthz", ""); resp.StatusCode == http.StatusOK; resp = do(gw, "GET", "/healthz", "") {
			}
			l, err := parseLimits(resp.Header, time.Now())
			ra, raErr := retryAfterSeconds(resp.Header)
			if err != nil || raErr != nil || ra < l.T || resp.StatusCode != http.StatusTooManyRequests {
				t.Fatalf("round %d: status %d, limits %+v %v, Retry-After %d %v", round, resp.StatusCode, l, err, ra, raErr)
			}
			if again := do(gw, "GET", "/healthz", ""); again.StatusCode != http.StatusTooManyRequests {
				t.Fatalf("round %d: an immediate retry got %d, want 429", round, again.StatusCode)
			}
			time.Sleep(time.Duration(ra) * time.Second)
			if after := do(gw, "GET", "/healthz", ""); after.StatusCode != http.StatusOK {
				t.Fatalf("round %d: after Retry-After %d s got %d, want 200", round, ra, after.StatusCode)
			}
			time.Sleep(time.Duration(round*170) * time.Millisecond)
		}
	})
}

// TestGateway_RateLimitSequentialProperty drives one sequential client with
// random pauses and checks that the fields tell the truth: r never negative
// nor above q, never rising before the advertised reset, and a 429 exactly
// when the previous answer said r=0 and its reset had not come.
func TestGateway_RateLimitSequentialProperty(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(rt *rapid.T) {
		perSecond := rapid.SampledFrom([]float64{0.5, 1, 2.5, 3, 10, 50}).Draw(rt, "perSecond")
		burst := rapid.IntRange(int(math.Ceil(perSecond)), int(math.Ceil(perSecond))*3+2).Draw(rt, "burst")
		clk := newClock()
		clk.Advance(time.Duration(rapid.IntRange(0, 999).Draw(rt, "phaseMs")) * time.Millisecond)
		gw, err := gateway.New(gateway.WithServiceURL(noService), gateway.WithRateLimit(perSecond, burst), gateway.WithClock(clk.Now))
		if err != nil {
			rt.Fatalf("New: %v", err)
		}
		pause := rapid.OneOf(rapid.Just(0), rapid.IntRange(0, 100), rapid.IntRange(0, 2500))
		var prev *limits
		var prevAt time.Time
		var prevRA int64 = -1
		for i := range rapid.IntRange(1, 150).Draw(rt, "requests") {
			clk.Advance(time.Duration(pause.Draw(rt, "pauseMs")) * time.Millisecond)
			now := clk.Now()
			resp := do(gw, "GET", "/healthz", "")
			l, err := parseLimits(resp.Header, now)
			if err != nil {
				rt.Fatalf("request %d: %v", i, err)
			}
			if got := float64(l.Q) / float64(l.W); math.Abs(got-perSecond) > 1e-9 {
				rt.Fatalf("q/w = %d/%d, want %g per second", l.Q, l.W, perSecond)
			}
			limited := resp.StatusCode == http.StatusTooManyRequests
			if prev != nil {
				beforeReset := now.Before(time.Unix(prev.XReset, 0))
				if want := prev.R == 0 && beforeReset; limited != want {
					rt.Fatalf("request %d: 429=%v after r=%d (before reset: %v)", i, limited, prev.R, beforeReset)
				}
				if beforeReset && l.R > prev.R {
					rt.Fatalf("request %d: r rose from %d to %d before the reset", i, prev.R, l.R)
				}
				if prevRA >= 0 && !now.Before(prevAt.Add(time.Duration(prevRA)*time.Second)) && limited {
					rt.Fatalf("request %d: refused although Retry-After %d s had elapsed", i, prevRA)
				}
			}
			prevRA = -1
			if limited {
				if prevRA, err = retryAfterSeconds(resp.Header); err != nil || prevRA < l.T || l.R != 0 {
					rt.Fatalf("request %d: 429 with Retry-After %d (%v), t=%d, r=%d", i, prevRA, err, l.T, l.R)
				}
			}
			prev, prevAt = &l, now
		}
	})
}

// TestGateway_AcceptedRate drives the gateway at twice the advertised rate
// and counts admissions per advertised window once the initial burst is
// spent: each must equal q.
func TestGateway_AcceptedRate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		perSecond float64
		burst     int
	}{{50, 50}, {10, 25}, {2.5, 5}} {
		clk := newClock()
		gw := newGateway(t, noService, gateway.WithRateLimit(tc.perSecond, tc.burst), gateway.WithClock(clk.Now))
		first := do(gw, "GET", "/healthz", "")
		l, _ := parseLimits(first.Header, clk.Now())
		window := time.Duration(l.W) * time.Second
		step := time.Duration(float64(time.Second) / (2 * tc.perSecond))
		start := time.Unix(clk.Now().Unix()+2*l.W, 0) // past the burst, on a boundary
		for clk.Now().Before(start) {
			do(gw, "GET", "/healthz", "")
			clk.Advance(step)
		}
		for w := range 4 {
			end, admitted := start.Add(time.Duration(w+1)*window), int64(0)
			for clk.Now().Before(end) {
				if do(gw, "GET", "/healthz", "").StatusCode == http.StatusOK {
					admitted++
				}
				clk.Advance(step)
			}
			if admitted != l.Q {
				t.Errorf("%g/s burst %d: window %d admitted %d, advertised q=%d per %d s", tc.perSecond, tc.burst, w, admitted, l.Q, l.W)
			}
		}
	}
}

func TestGateway_TenantsIndependent(t *testing.T) {
	t.Parallel()
	clk := newClock()
	gw := newGateway(t, noService, gateway.WithRateLimit(3, 3), gateway.WithClock(clk.Now))
	for range 3 {
		do(gw, "GET", "/healthz", "a")
	}
	if resp := do(gw, "GET", "/healthz", "a"); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("tenant a: status %d, want 429", resp.StatusCode)
	}
	resp := do(gw, "GET", "/healthz", "b")
	l, err := parseLimits(resp.Header, clk.Now())
	if resp.StatusCode != http.StatusOK || err != nil || l.R != 2 {
		t.Fatalf("tenant b: status %d r=%d (%v); want 200 r=2", resp.StatusCode, l.R, err)
	}
	if resp := do(gw, "GET", "/healthz", ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("default tenant: status %d, want 200", resp.StatusCode)
	}
}
