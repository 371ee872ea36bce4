package throttling

import (
	"math"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

func TestThrottledLimit(t *testing.T) {
	tests := []struct {
		name         string
		t            tally
		k, rejection float64
		attempts     int
		want         float64
		// throttled and unthrottled are call counts the bound must pass and fail.
		throttled, unthrottled int
	}{
		// The reference under a total refusal: 65 requests, 0 accepts.
		{"total refusal, cap 0.9", tally{requests: 65}, 2, 0.9, 3, 0.1*65*3 + 6.5 + 5, 11, 198},
		// Some accepted: √(K·accepts·requests·attempts) adds to the
		// allowance, what a throttler counting only the calls it made lets
		// through (√(2·20·180) ≈ 84.9).
		{"partial refusal", tally{requests: 60, accepts: 20}, 2, 0.9, 3, math.Sqrt(2*20*180) + 18 + 6 + 5, 110, 180},
		// failsafe-go at K = 2 with a tenth accepted lets about a fifth of
		// the offered calls through: 13 of 67, 1 accepted (helper's
		// simulation and examples/foreign/failsafe-orders).
		{"failsafe-go's count", tally{requests: 67, accepts: 1}, 2, 0.9, 1, math.Sqrt(2*67) + 6.7 + 6.7 + 5, 26, 67},
		// No throttler and no retry of a 429, declared (max_attempts: 1):
		// one call a request, a tenth accepted.
		{"unthrottled, no retries", tally{requests: 67, accepts: 7}, 2, 0.9, 1, math.Sqrt(2*7*67) + 6.7 + 6.7 + 5, 40, 67},
		// Uncapped (max_rejection 1): only Eq. 21-1 and the tolerance.
		{"uncapped", tally{requests: 100}, 2, 1, 3, 15, 15, 16},
		// One attempt per request: the cap's allowance shrinks.
		{"one attempt", tally{requests: 100}, 2, 0.9, 1, 25, 25, 26},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := throttledLimit(tt.t, tt.k, tt.rejection, tt.attempts, 0.1, 5)
			if got < tt.want-1e-9 || got > tt.want+1e-9 {
				t.Fatalf("limit %.2f, want %.2f", got, tt.want)
			}
			if float64(tt.throttled) > got {
				t.Errorf("%d calls exceed the limit %.2f: a throttling target would fail", tt.throttled, got)
			}
			if float64(tt.unthrottled) <= got {
				t.Errorf("%d calls within the limit %.2f: a target passing refusals through would pass", tt.unthrottled, got)
			}
		})
	}
}

func TestRecovered(t *testing.T) {
	tests := []struct {
		name string
		t    tally
		want bool
	}{
		{"every request reached it", tally{requests: 61, calls: 61}, true},
		{"a tenth missing", tally{requests: 60, calls: 54}, true},
		{"more than a tenth missing", tally{requests: 60, calls: 53}, false},
		{"stuck at the cap", tally{requests: 69, calls: 8}, false},
		{"retries above the requests", tally{requests: 10, calls: 14}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := recovered(tt.t, 0.1); got != tt.want {
				t.Errorf("recovered(%+v) = %v, want %v", tt.t, got, tt.want)
			}
		})
	}
}

func TestPlan_count(t *testing.T) {
	t0 := time.Now()
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	p := &plan{
		front: []faults.Entry{{Received: at(0)}, {Received: at(100)}, {Received: at(900)}, {Received: at(1000)}},
		calls: []faults.Entry{
			{Received: at(0), Status: http.StatusTooManyRequests},
			{Received: at(150), Status: http.StatusCreated},
			{Received: at(200), Status: http.StatusPaymentRequired}, // declined: an answer, accepted
			{Received: at(300), Status: http.StatusServiceUnavailable},
			{Received: at(400), Status: 0}, // no answer
			{Received: at(1000), Status: http.StatusCreated},
		},
	}
	tests := []struct {
		name     string
		from, to time.Time
		want     tally
	}{
		{"all but the end", at(0), at(1000), tally{requests: 3, calls: 5, accepts: 2}},
		{"from excludes before", at(100), at(1001), tally{requests: 3, calls: 5, accepts: 3}},
		{"empty", at(500), at(800), tally{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.count(tt.from, tt.to); got != tt.want {
				t.Errorf("count = %+v, want %+v", got, tt.want)
			}
		})
	}
	// With a 60 ms lag, a request received 10 ms before the window ends
	// counts its call received 50 ms after.
	lagged := &plan{front: []faults.Entry{{Received: at(0)}, {Received: at(990)}},
		calls: []faults.Entry{{Received: at(60), Status: http.StatusCreated}, {Received: at(1050), Status: http.StatusCreated}}, lag: 60 * time.Millisecond}
	if got, want := lagged.count(at(0), at(1000)), (tally{requests: 2, calls: 2, accepts: 2}); got != want {
		t.Errorf("lagged count = %+v, want %+v", got, want)
	}
	// A window holding the last request counts every later call: a stall
	// at the end let the last one land 800 ms late.
	lagged.calls = append(lagged.calls, faults.Entry{Received: at(1790), Status: http.StatusCreated})
	lagged.front = append(lagged.front, faults.Entry{Received: at(995)})
	if got, want := lagged.count(at(0), at(1000)), (tally{requests: 3, calls: 3, accepts: 3}); got != want {
		t.Errorf("count to the last request = %+v, want %+v", got, want)
	}
}

// TestTie: a request's first call is the earliest after it carrying its
// key, as is or wrapped, and the lag their median delay; calls without a
// key, or whose key no request carried, tell nothing.
func TestTie(t *testing.T) {
	t0 := time.Now()
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	h := &check.Harness{}
	req := func(ms int, key string) faults.Entry {
		return faults.Entry{Received: at(ms), Headers: map[string]string{"Idempotency-Key": key}}
	}
	front := []faults.Entry{req(0, "a"), req(100, "b"), req(200, "c"), req(300, "")}
	calls := []faults.Entry{req(30, "org:a"), req(500, "org:a"), req(150, "b"), req(280, "c"), {Received: at(310)}, req(320, "zzz")}
	own, lag := tie(h, front, calls)
	if lag != 50*time.Millisecond {
		t.Errorf("lag = %s; want the median of 30, 50 and 80 ms", lag)
	}
	if own[0] != &calls[0] || own[1] != &calls[2] || own[2] != &calls[3] || own[3] != nil {
		t.Errorf("own = %v; want each request's first call, none for the keyless one", own)
	}
	if _, lag := tie(h, front, nil); lag != 0 {
		t.Errorf("lag without calls = %s; want 0", lag)
	}
	// reach counts a request's call however late it landed.
	p := &plan{front: front, own: own, tied: true}
	if got, want := p.reach(at(0), at(250)), (tally{requests: 3, calls: 3}); got != want {
		t.Errorf("reach = %+v, want %+v", got, want)
	}
}

func TestConfig_warmup(t *testing.T) {
	tests := []struct {
		name     string
		cfg      Config
		recovery time.Duration
		want     time.Duration
	}{
		{"declared recovery", Config{}, 2500 * time.Millisecond, 2500 * time.Millisecond},
		{"short recovery: at least 1 s", Config{}, 200 * time.Millisecond, time.Second},
		{"long recovery: MaxWarmup", Config{}, 2 * time.Minute, 10 * time.Second},
		{"no recovery", Config{}, 0, 2 * time.Second},
		{"configured", Config{Warmup: 3 * time.Second}, 2500 * time.Millisecond, 3 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &check.Harness{Policy: check.Policy{Throttling: check.ThrottlingPolicy{K: 2, Recovery: tt.recovery}}}
			if got, why := tt.cfg.warmup(h); got != tt.want || why == "" {
				t.Errorf("warmup = %s (%q), want %s with a reason", got, why, tt.want)
			}
		})
	}
}

func TestSuite_needs(t *testing.T) {
	tests := []struct {
		name                 string
		policy               check.ThrottlingPolicy
		throttling, recovery bool // whether each need is met
	}{
		{"undeclared", check.ThrottlingPolicy{}, false, false},
		{"no recovery", check.ThrottlingPolicy{K: 2}, true, false},
		{"declared", check.ThrottlingPolicy{K: 2, MaxRejection: 0.9, Recovery: time.Second}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &check.Harness{Policy: check.Policy{Throttling: tt.policy}}
			if got := NeedThrottling.Unmet(h) == ""; got != tt.throttling {
				t.Errorf("throttling need met = %v, want %v", got, tt.throttling)
			}
			if got := NeedThrottlingRecovery.Unmet(h) == ""; got != tt.recovery {
				t.Errorf("recovery need met = %v, want %v", got, tt.recovery)
			}
		})
	}
	if err := check.Validate([]check.Suite{Suite(Config{})}); err != nil {
		t.Error(err)
	}
}

func TestPlan_backAfter(t *testing.T) {
	t0 := time.Now()
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	// run builds a plan healed at 0 with one request every 50 ms until
	// 2 s, each reaching the dependency from back on.
	run := func(back int, relapse ...int) *plan {
		p := &plan{healed: t0}
		for ms := 0; ms < 2000; ms += 50 {
			p.front = append(p.front, faults.Entry{Received: at(ms)})
			if ms >= back && !slices.Contains(relapse, ms) {
				p.calls = append(p.calls, faults.Entry{Received: at(ms), Status: http.StatusCreated})
			}
		}
		return p
	}
	tests := []struct {
		name string
		p    *plan
		want time.Duration
		ok   bool
	}{
		{"at once", run(0), 0, true},
		{"after 600 ms", run(600), 750 * time.Millisecond, true},
		{"a relapse restarts it", run(0, 1000, 1050), 1250 * time.Millisecond, true},
		{"never", run(5000), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.p.backAfter(at(2000), 250*time.Millisecond, 0.1)
			if got != tt.want || ok != tt.ok {
				t.Errorf("backAfter = %s, %v; want %s, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
