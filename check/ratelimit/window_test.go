package ratelimit

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// TestSameWindow: an exact reset instant (an epoch reset) names one window;
// Date + t, known only to the second, does so only when the later response
// came a second or more before that window's earliest possible end. Two
// windows of a limiter not aligned to seconds can show one Date + t: at
// 10.05 s a window ending at 11.1 s says t=2 (Date 10), and at 11.5 s the
// next one, ending at 12.1 s, says t=1 (Date 11): both 12.
func TestSameWindow(t *testing.T) {
	at := func(s int) time.Time { return time.Unix(int64(1_800_000_000+s), 0) }
	for _, c := range []struct {
		name       string
		prevEnd    time.Time
		prevExact  bool
		curDate    time.Time
		curEnd     time.Time
		curExact   bool
		wantJudged bool
	}{
		{"exact, equal", at(12), true, at(11), at(12), true, true},
		{"exact, different", at(12), true, at(11), at(13), true, false},
		{"Date + t, two unaligned windows", at(12), false, at(11), at(12), false, false},
		{"Date + t, long window", at(15), false, at(11), at(15), false, true},
		{"Date + t, no Date", at(15), false, time.Time{}, at(15), false, false},
		{"unknown", time.Time{}, false, at(11), time.Time{}, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			pv := quotaView{r: 1, end: c.prevEnd, exact: c.prevExact}
			cv := quotaView{r: 2, end: c.curEnd, exact: c.curExact}
			if got := sameWindow(pv, check.Observation{Date: c.curDate}, cv); got != c.wantJudged {
				t.Errorf("sameWindow = %v; want %v", got, c.wantJudged)
			}
		})
	}
}

// TestCase_legacyPolicyOf: a first response whose X-RateLimit-Reset had
// passed as it arrived (its window ended between the target's clock
// reading and ours) names no window; the next probe, in a new window,
// does. RL-01q went not applicable on a busy runner for want of this.
func TestCase_legacyPolicyOf(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		reset := time.Now().Add(-time.Millisecond) // the first one: just past
		if calls > 1 {
			reset = time.Now().Add(700 * time.Millisecond)
		}
		w.Header().Set("X-RateLimit-Limit", "10")
		w.Header().Set("X-RateLimit-Remaining", "9")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(reset.UnixMilli(), 10))
	}))
	defer srv.Close()
	h := &check.Harness{TargetURL: srv.URL, Journal: faults.NewJournal(), Seed: 1, Policy: check.Policy{RateLimitProbe: "/quota"}}
	c := h.NewCase(t.Context(), "RL-01q")
	first, err := rlProbe(t.Context(), c, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := legacyPolicy(first); ok {
		t.Fatal("a reset in the past named a window")
	}
	p, ok := legacyPolicyOf(t.Context(), c, "t1", first)
	if !ok || p.Quota != 10 || p.Window != time.Second || calls != 2 {
		t.Errorf("legacyPolicyOf = %+v, %v after %d probes; want q=10 per 1s after 2", p, ok, calls)
	}
}

// TestFellForOthers: the cross-tenant rule judges a lone policy, or one
// partitioned by a key, and the legacy quota; a global policy beside a
// per-tenant one may fall for the other tenant's use.
func TestFellForOthers(t *testing.T) {
	obs := func(h map[string]string) check.Observation {
		hd := http.Header{}
		for k, v := range h {
			hd.Set(k, v)
		}
		return check.Observe(hd, time.Now())
	}
	for _, c := range []struct {
		name       string
		prev, cur  map[string]string
		wantFallen bool
	}{
		{"lone policy fell", map[string]string{"RateLimit": `"tenant";r=9;t=1`}, map[string]string{"RateLimit": `"tenant";r=4;t=1`}, true},
		{"lone policy kept", map[string]string{"RateLimit": `"tenant";r=9;t=1`}, map[string]string{"RateLimit": `"tenant";r=8;t=1`}, false},
		{"global beside per-tenant", map[string]string{"RateLimit": `"tenant";r=9;t=1;pk=:YQ==:, "global";r=90;t=1`},
			map[string]string{"RateLimit": `"tenant";r=8;t=1;pk=:YQ==:, "global";r=70;t=1`}, false},
		{"per-tenant beside global fell", map[string]string{"RateLimit": `"tenant";r=9;t=1;pk=:YQ==:, "global";r=90;t=1`},
			map[string]string{"RateLimit": `"tenant";r=5;t=1;pk=:YQ==:, "global";r=89;t=1`}, true},
		{"legacy fell", map[string]string{"X-RateLimit-Remaining": "9"}, map[string]string{"X-RateLimit-Remaining": "4"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, q := obs(c.prev), obs(c.cur)
			pv, _ := quotaLeft(p)
			cv, _ := quotaLeft(q)
			if _, _, _, fell := fellForOthers(p, q, pv, cv); fell != c.wantFallen {
				t.Errorf("fellForOthers = %v; want %v", fell, c.wantFallen)
			}
		})
	}
}

// TestRLMachine_judge: a 429 right after a response that advertised r > 0
// breaks a promise unless the other tenant's use may have spent a policy
// that every tenant shares: the refusal shows that policy spent, or omits
// it, or names only a policy the earlier response did not. Against a two-tier limiter (tenant q=10, global q=15) RL-07p blamed
// tenant A for the global window tenant B had just emptied.
func TestRLMachine_judge(t *testing.T) {
	obs := func(status int, rl string) check.Observation {
		hd := http.Header{}
		if rl != "" {
			hd.Set("RateLimit", rl)
		}
		o := check.Observe(hd, time.Now())
		o.Status = status
		return o
	}
	legacy := func(status int, remaining string) check.Observation {
		o := check.Observe(http.Header{"X-Ratelimit-Remaining": {remaining}}, time.Now())
		o.Status = status
		return o
	}
	const (
		twoTier     = `"tenant";r=1;t=1;pk=:YQ==:, "global";r=1;t=1`
		globalSpent = `"tenant";r=1;t=1;pk=:YQ==:, "global";r=0;t=1`
		globalLeft  = `"tenant";r=1;t=1;pk=:YQ==:, "global";r=4;t=1`
		tenantOnly  = `"tenant";r=1;t=1;pk=:YQ==:`
		lone        = `"tenant";r=1;t=1`
		loneRefusal = `"tenant";r=0;t=1`
	)
	for _, c := range []struct {
		name     string
		prev     string
		cur      check.Observation
		others   int
		wantFail bool
	}{
		{"global spent by the other tenant", twoTier, obs(429, globalSpent), 1, false},
		{"refusal with legacy fields alone", twoTier, legacy(429, "0"), 1, false},
		{"refusal names only a policy the 201 did not", tenantOnly, obs(429, `"global";r=0;t=1`), 1, false},
		{"refusal names only its own policy, with room", tenantOnly, obs(429, tenantOnly), 1, true},
		{"refusal omits the global policy", twoTier, obs(429, tenantOnly), 1, false},
		{"global still has room", twoTier, obs(429, globalLeft), 1, true},
		{"no other request between", twoTier, obs(429, globalSpent), 0, true},
		{"lone policy, other tenant between", lone, obs(429, loneRefusal), 1, true},
		{"admitted", twoTier, obs(201, globalSpent), 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := &rlMachine{twoTenants: true, countsRequests: true}
			prev := obs(201, c.prev)
			s := &rlTenantState{label: "A", prev: &prev, others: c.others}
			if msg := m.judge(s, c.cur); (msg != "") != c.wantFail {
				t.Errorf("judge = %q; want a failure: %v", msg, c.wantFail)
			}
		})
	}
}
