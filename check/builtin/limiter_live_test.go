package builtin

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/reports"
)

// TestLimiter_draft10Applicability: a limited route that shows only
// X-RateLimit-* (or nothing) is not held to the draft-10 fields unless the
// spec declares them; the reason names what was seen.
func TestLimiter_draft10Applicability(t *testing.T) {
	t.Parallel()
	for _, silent := range []bool{false, true} {
		h := limiterFakeHarness(t, &limiterFake{quota: 1000, silent: silent})
		for _, id := range []string{"RL-01", "RL-07"} {
			judged(t, h, id, reports.StatusNotApplicable)
		}
		h.Policy.RateLimitHeaders = "draft-10"
		judged(t, h, "RL-01", reports.StatusFail)
		judged(t, h, "RL-07", reports.StatusFail)
	}
}

// TestLimiter_keyOptional: IK-05 holds a keyless request to 400 unless the
// spec declares keys optional.
func TestLimiter_keyOptional(t *testing.T) {
	t.Parallel()
	h := limiterFakeHarness(t, &limiterFake{quota: 1000})
	judged(t, h, "IK-05", reports.StatusFail)
	h.Policy.KeyOptional = true
	judged(t, h, "IK-05", reports.StatusNotApplicable)
}

// TestLimiter_concurrentCopies: IK-07 against a service whose limiter
// allows 10 requests per second per tenant: its 429s are refusals, not
// duplicates, so a correct store passes and a racy one still fails; a
// limiter that admits one copy at a time starves the race (inconclusive).
func TestLimiter_concurrentCopies(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		f    *limiterFake
		want reports.Status
	}{
		{"correct store", &limiterFake{quota: 10}, reports.StatusPass},
		{"racy store", &limiterFake{quota: 10, racy: true}, reports.StatusFail},
		{"one at a time", &limiterFake{quota: 1}, reports.StatusInconclusive},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := limiterFakeHarness(t, tc.f)
			h.Conventions.MaxConcurrentCopies = 30
			judged(t, h, "IK-07", tc.want)
		})
	}
}

// TestLimiter_legacyFields: where X-RateLimit-* is all a service shows,
// RL-07b judges its remaining (a sliding window's estimate that rises
// within a window fails) and RL-09b its reset (still refused after it fails).
func TestLimiter_legacyFields(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		f    *limiterFake
		id   string
		want reports.Status
	}{
		{"honest remaining", &limiterFake{quota: 10}, "RL-07b", reports.StatusPass},
		{"rising remaining", &limiterFake{quota: 10, rising: true}, "RL-07b", reports.StatusFail},
		{"sliding window", &limiterFake{quota: 10, sliding: true}, "RL-07b", reports.StatusFail},
		{"no fields", &limiterFake{quota: 10, silent: true}, "RL-07b", reports.StatusNotApplicable},
		{"honest reset", &limiterFake{quota: 10}, "RL-09b", reports.StatusPass},
		{"refused after the reset", &limiterFake{quota: 10, lateReset: true}, "RL-09b", reports.StatusFail},
		{"sliding window after the reset", &limiterFake{quota: 10, sliding: true}, "RL-09b", reports.StatusFail},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			judged(t, limiterFakeHarness(t, tc.f), tc.id, tc.want)
		})
	}
}

// TestLimiter_property: RL-07p, exploring two tenants' bursts, pauses and
// waits for the reset, passes an honest fixed window and fails what the
// fixed checks see one sequence of (a sliding window's rising estimate, a
// refusal past the reset) and one they cannot: a remaining that counts
// the other tenant's requests, which RL-07b (one tenant) and RL-20
// (admission only) pass.
func TestLimiter_property(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		f       *limiterFake
		explore time.Duration // 0: the default
		want    reports.Status
	}{
		{"honest fixed window", &limiterFake{quota: 10}, 0, reports.StatusPass},
		{"remaining shared by tenants", &limiterFake{quota: 10, sharedRemaining: true}, 0, reports.StatusFail},
		{"refused after the reset", &limiterFake{quota: 10, lateReset: true}, 0, reports.StatusFail},
		// The fake's requests take 50 ms (a charge each), so a case takes
		// 2–3 s; where it breaks depends on where its windows fall, so it
		// gets the time --explore gives before a release.
		{"sliding window", &limiterFake{quota: 10, sliding: true}, 20 * time.Second, reports.StatusFail},
		{"no fields", &limiterFake{quota: 10, silent: true}, 0, reports.StatusNotApplicable},
		// 32 requests of 50 ms each outlast the 1 s window that refills
		// the quota of 30: no case can meet a 429, and a pass would claim
		// what no case tried; the time is the target's, not the runner's.
		{"a quota no sequential burst can spend", &limiterFake{quota: 30}, 0, reports.StatusInconclusive},
		// A global policy beside each tenant's: the other tenant's use
		// lowers the global r and, at 15, spends it, refusing a tenant
		// whose own policy still has r > 0. Neither breaks a promise.
		{"two tiers", &limiterFake{quota: 10, global: 15}, 0, reports.StatusPass},
		{"two tiers, the tenant's remaining shared", &limiterFake{quota: 10, global: 100, sharedRemaining: true}, 0, reports.StatusFail},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := limiterFakeHarness(t, tc.f)
			h.Explore = tc.explore
			res := judged(t, h, "RL-07p", tc.want)
			if tc.want == reports.StatusInconclusive && (res.Noisy || !strings.Contains(res.Reason, "the target answering too slowly")) {
				t.Errorf("reason %q, noisy %v; want the target's slowness, not a noisy runner", res.Reason, res.Noisy)
			}
		})
	}
	// The same bursts, the target quick and the runner 50 ms late before
	// each request it sends: the time is the runner's, a noisy runner's
	// verdict, judged again.
	t.Run("a runner too slow to spend the quota", func(t *testing.T) {
		t.Parallel()
		h := limiterFakeHarness(t, &limiterFake{quota: 30, quick: true})
		h.Client = &http.Client{Transport: lateTransport{50 * time.Millisecond}}
		res := judged(t, h, "RL-07p", reports.StatusInconclusive)
		if !res.Noisy || !strings.Contains(res.Reason, "most of it outside the target") {
			t.Errorf("reason %q, noisy %v; want a noisy runner's, the time outside the target", res.Reason, res.Noisy)
		}
	})
	t.Run("remaining shared by tenants passes the fixed checks", func(t *testing.T) {
		t.Parallel()
		for _, id := range []string{"RL-07b", "RL-20"} {
			judged(t, limiterFakeHarness(t, &limiterFake{quota: 10, sharedRemaining: true}), id, reports.StatusPass)
		}
	})
}

// TestLimiter_enforcedQuota: with no probe declared, RL-01q drives the
// declared rate-limited POST (fresh keys) against the quota X-RateLimit-Limit
// advertises: a limiter enforcing it passes, one admitting three times as
// many fails. RL-01q offers twice the quota: a limiter admitting exactly
// that refuses only when a busy runner bunches the load, at any time, and a
// first refusal late in the load leaves too few windows to judge (CI saw
// one at 4.7 s: inconclusive).
func TestLimiter_enforcedQuota(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		f    *limiterFake
		want reports.Status
	}{
		{"enforces the advertised quota", &limiterFake{quota: 10}, reports.StatusPass},
		{"admits three times as many", &limiterFake{quota: 10, enforced: 30}, reports.StatusFail},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			judged(t, limiterFakeHarness(t, tc.f), "RL-01q", tc.want)
		})
	}
}

// TestLimiter_declaredTenantsRefill: declared tenants are shared by every
// check, so RL-20 must not take tenant B's quota, spent by an earlier
// check, for A's doing: it waits until the earlier 429 said B is back.
func TestLimiter_declaredTenantsRefill(t *testing.T) {
	t.Parallel()
	h := limiterFakeHarness(t, &limiterFake{quota: 10, window: 2 * time.Second})
	h.Conventions.Tenants = []string{"acme", "globex"}
	earlier := h.NewCase(t.Context(), "earlier")
	refused := false
	for n := 0; n < 50 && !refused; n++ {
		r := earlier.Send(t.Context(), check.Call{Key: earlier.Key(), Tenant: "globex", Amount: 100})
		if refused = r.Status == http.StatusTooManyRequests; refused {
			o := check.Observe(r.Header, time.Now())
			o.Status, o.Tenant = r.Status, "globex"
			h.NoteRefusal(o, time.Minute)
		}
	}
	if !refused {
		t.Fatal("globex not refused after 50 requests")
	}
	earlier.Done(t.Context())
	judged(t, h, "RL-20", reports.StatusPass)
}

// TestLimiter_tenantCredentials: where the service takes the tenant from a
// credential, the rate-limit suite's probes and load carry the headers the
// spec binds to each tenant, or it sees nothing but 401s.
func TestLimiter_tenantCredentials(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"RL-20", "RL-01q"} {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			h := limiterFakeHarness(t, &limiterFake{quota: 10, auth: true})
			h.Conventions.TenantHeaders = func(tenant string) http.Header {
				return http.Header{"Authorization": {"Bearer " + tenant}}
			}
			judged(t, h, id, reports.StatusPass)
		})
	}
}

// lateTransport sends each request late by its pause: a runner slow
// outside the target.
type lateTransport struct{ pause time.Duration }

func (l lateTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	time.Sleep(l.pause)
	return http.DefaultTransport.RoundTrip(r)
}
