package ratelimit

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"pgregory.net/rapid"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/headers"
	"github.com/resilcheck/resilcheck/properties"
)

// rlExplore is RL-07p's default exploring time; --explore lengthens it.
// A case waits out a reset and paces requests through a window, about
// two and a half seconds with one-second windows, and no case begins that
// would end past the budget, so each worker runs three.
const rlExplore = 7500 * time.Millisecond

// Bounds on what one case sends and waits, so a large quota or a long
// window costs no more than a small one.
const (
	rlMaxBurst        = 250
	rlMaxCaseRequests = 600
	rlMaxResetWait    = 2 * time.Second
	rlMaxWindow       = 2 * time.Second
	rlPaced           = 4 // requests spread through one window
)

// rateLimitProperty is RL-07p. RL-07b, RL-09b and RL-20 each drive one
// hand-picked sequence; this draws interleavings of two tenants' bursts,
// requests paced through a window and waits for the advertised reset, and
// judges every response against the same tenant's previous one: r never
// negative, never rising before the reset it advertised, no 429 right
// after r > 0, admission once a refusal's advertised reset has passed, and
// r falling by at most one per request of the tenant's own whatever the
// other tenant sent (one tenant's use does not count against another).
// Every case ends by waiting out a refusal and pacing requests through the
// window after it, where a sliding window's estimate rises.
func rateLimitProperty(ctx context.Context, pc *check.Case) check.Result {
	h := pc.Harness
	tenant, first, v0, stop := rlFirst(ctx, pc)
	if stop != nil {
		return *stop
	}
	m := &rlMachine{h: h, ctx: ctx, id: pc.ID, scale: int(min(v0.r+1, rlMaxBurst)), window: time.Second, tol: h.Slack(),
		twoTenants: h.Conventions.TenantHeaderName() != "", countsRequests: true}
	p, known := headers.Policy{}, false
	if l0, ok := first.MinRemaining(); ok {
		p, known = policyOf(first.Fields, l0)
		m.countsRequests = !known || p.Unit == headers.UnitRequests
	} else {
		p, known = legacyPolicyOf(ctx, pc, tenant, first)
	}
	if known {
		m.scale = int(min(p.Quota, rlMaxBurst))
		if p.Window > 0 {
			m.window = min(p.Window, rlMaxWindow)
		}
	}
	m.scale = max(m.scale, 1)
	want := fmt.Sprintf("for every interleaving of bursts (up to %d requests), requests paced through a window of %s and waits for the advertised reset (+%s)%s: r ≥ 0; r not rising before the reset it advertised; no 429 right after r > 0; admitted once a 429's reset has passed",
		m.scale+2, m.window, check.Ms(m.tol), map[bool]string{true: " by two tenants", false: ""}[m.twoTenants])
	if m.twoTenants {
		want += "; a tenant's r falls by at most one per request of its own, whatever the other sent"
	}
	pcfg := properties.Config{Seed: h.Rand(pc.ID).Uint64(), ShrinkTime: 15 * time.Second, MinCases: 1}
	pcfg = h.Exploring(pcfg, rlExplore)
	var ms []*rlMachine
	r := h.ExploreEach(pc.ID, pcfg, func(w int, hw *check.Harness) func(*rapid.T) bool {
		mw := *m
		mw.h, mw.id = hw, check.WorkerID(pc.ID, w)
		ms = append(ms, &mw)
		return mw.run
	})
	refused, slow, slowTarget := 0, 0, 0
	for _, mw := range ms {
		refused, slow, slowTarget = refused+mw.refusedCases, slow+mw.slowBursts, slowTarget+mw.slowTarget
	}
	// A sequential client slower than the quota per window never meets a
	// refusal: the invariants about 429s went untested, and a pass would
	// claim them.
	switch {
	case r.Failed || refused > 0:
	case slow > 0:
		return check.NoisyRunner("no case reached a 429: %d bursts meant to reach one each took longer than the %s window, one request at a time, most of it outside the target (%d cases)", slow, m.window, r.Cases)
	case slowTarget > 0:
		return check.Inconclusive("no case reached a 429: %d bursts meant to reach one each took longer than the %s window, one request at a time, the target answering too slowly to spend its quota so (%d cases)", slowTarget, m.window, r.Cases)
	}
	return check.Exploration{Want: want, Meaningful: "reached a 429 or interleaved two tenants"}.Result(r, pcfg, ms[r.Worker].last)
}

// rlMachine runs RL-07p's cases.
type rlMachine struct {
	h              *check.Harness
	ctx            context.Context
	id             string
	scale          int           // the quota, or what remained at first, capped: bursts go up to scale + 2
	window         time.Duration // the policy's window, capped; 1 s when unknown
	tol            time.Duration
	twoTenants     bool
	countsRequests bool
	cases          int
	last           []faults.Entry
	// refusedCases counts the cases that met a 429; slowBursts and
	// slowTarget the bursts until refused that met none and outlasted a
	// window, mostly outside the target (the runner's time) or in it.
	refusedCases, slowBursts, slowTarget int
}

// rlTenantState is what one tenant of a case has seen.
type rlTenantState struct {
	name   string
	label  string // "A" or "B" in the story
	prev   *check.Observation
	others int  // the other tenant's requests since prev
	waited bool // the case waited out prev's advertised reset since it
}

// rlCase is one case's tenants and tallies.
type rlCase struct {
	m           *rlMachine
	t           *rapid.T
	c           *check.Case
	ts          []*rlTenantState
	sent        int
	refused     int
	interleaved bool
	lastRefused *rlTenantState
}

// run is one case: one request of each tenant, drawn actions by drawn
// tenants, then, once a tenant is refused (A is driven into it if none
// was), one request of the other, and the refused tenant waits out its
// reset and paces requests through the window after it. It reports
// whether the case reached a 429 or interleaved the tenants.
func (m *rlMachine) run(t *rapid.T) bool {
	m.cases++
	c := m.h.NewCase(m.ctx, fmt.Sprintf("%s-%d", m.id, m.cases))
	defer c.Done(m.ctx)
	defer func() { m.last = c.Evidence() }()
	k := &rlCase{m: m, t: t, c: c, ts: []*rlTenantState{{name: rlTenant(m.ctx, c), label: "A"}}}
	if m.twoTenants {
		if b := rlTenant(m.ctx, c); b != k.ts[0].name {
			k.ts = append(k.ts, &rlTenantState{name: b, label: "B"})
		}
	}
	for _, who := range k.ts {
		k.send(who, 1, false) // each tenant's r before anything happens
	}
	for range rapid.IntRange(1, 5).Draw(t, "steps") {
		who := k.ts[rapid.IntRange(0, len(k.ts)-1).Draw(t, "tenant")]
		switch rapid.SampledFrom([]string{"until refused", "a few", "paced through a window", "wait out the reset, then one"}).Draw(t, "action") {
		case "until refused":
			k.send(who, m.scale+2, true)
		case "a few":
			k.send(who, rapid.IntRange(1, 3).Draw(t, "requests"), false)
		case "paced through a window":
			k.paced(who)
		case "wait out the reset, then one":
			if k.lastRefused != nil {
				who = k.lastRefused // the reset worth waiting for
			}
			if k.waitReset(who) {
				k.send(who, 1, false)
			}
		}
	}
	if k.lastRefused == nil {
		k.send(k.ts[0], m.scale+2, true)
	}
	for _, other := range k.ts {
		if other != k.lastRefused {
			k.send(other, 1, false) // not limited by the refused tenant's use
		}
	}
	if who := k.lastRefused; who != nil && k.waitReset(who) {
		k.paced(who)
	}
	if k.refused > 0 {
		m.refusedCases++
	}
	return k.refused > 0 || k.interleaved
}

// send sends up to n requests of tenant who, one at a time (stopping at
// the first 429 when untilRefused), judging each; it fails the case on a
// broken invariant.
func (k *rlCase) send(who *rlTenantState, n int, untilRefused bool) {
	n = min(n, rlMaxCaseRequests-k.sent)
	got := make(map[int]int)
	sent := 0
	start := time.Now()
	for sent < n {
		if k.one(who, got, &sent, n) == http.StatusTooManyRequests && untilRefused {
			break
		}
	}
	if took := time.Since(start); untilRefused && k.m.scale < rlMaxBurst && got[http.StatusTooManyRequests] == 0 && took > k.m.window {
		// scale + 2 requests spend a quota of scale within a window; a
		// larger quota, capped, was never within reach.
		if k.targetTime(who, start) > took/2 {
			k.m.slowTarget++
		} else {
			k.m.slowBursts++
		}
	}
	if sent > 0 {
		k.t.Logf("tenant %s: %s, r now %s", who.label, burstOf(sent, sent, got), remainingOf(who.prev))
	}
}

// targetTime sums how long the front proxy took over tenant who's
// requests since from: the target's share of the time they took. Where
// the journal does not show the tenant, every request since from counts.
func (k *rlCase) targetTime(who *rlTenantState, from time.Time) time.Duration {
	name := k.m.h.Conventions.TenantHeaderName()
	var own, all time.Duration
	for _, e := range k.c.Evidence() {
		if e.Side != "front" || e.Received.Before(from) || e.Finished.IsZero() {
			continue
		}
		took := e.Finished.Sub(e.Received)
		all += took
		if name != "" && e.Header(name) == who.name {
			own += took
		}
	}
	if own == 0 {
		return all
	}
	return own
}

// paced sends rlPaced requests of tenant who spread evenly through one
// window, judging each: a fixed window's r only falls within it, while a
// sliding window's estimate rises as the spent window's weight decays,
// which back-to-back requests never show.
func (k *rlCase) paced(who *rlTenantState) {
	gap := k.m.window / rlPaced
	got := make(map[int]int)
	sent := 0
	for i := range rlPaced {
		if k.sent >= rlMaxCaseRequests {
			break
		}
		if i > 0 {
			check.Sleep(k.m.ctx, gap)
		}
		k.one(who, got, &sent, rlPaced)
	}
	k.t.Logf("tenant %s: %s %s apart, r now %s", who.label, burstOf(sent, sent, got), check.Ms(gap), remainingOf(who.prev))
}

// one sends one request of who, judges it and returns its status.
func (k *rlCase) one(who *rlTenantState, got map[int]int, sent *int, of int) int {
	o, err := rlProbe(k.m.ctx, k.c, who.name)
	if err != nil {
		k.t.Skipf("request %d failed: %v", k.sent+1, err)
	}
	k.sent++
	*sent++
	got[o.Status]++
	if who.others > 0 && who.prev != nil {
		k.interleaved = true
	}
	if msg := k.m.judge(who, o); msg != "" {
		k.t.Logf("tenant %s: %s", who.label, burstOf(*sent, of, got))
		k.t.Fatalf("tenant %s, request %d of the case: %s", who.label, k.sent, msg)
	}
	who.prev, who.others, who.waited = &o, 0, false
	for _, other := range k.ts {
		if other != who {
			other.others++
		}
	}
	if o.Status == http.StatusTooManyRequests {
		k.refused++
		k.lastRefused = who
	} else if k.lastRefused == who {
		k.lastRefused = nil
	}
	return o.Status
}

// waitReset waits until who's last response said its quota is back (the
// latest of its resets and Retry-After, plus the tolerance), unless that
// is more than rlMaxResetWait away; it reports whether it waited.
func (k *rlCase) waitReset(who *rlTenantState) bool {
	if who.prev == nil {
		return false
	}
	back := who.prev.BackIn()
	wait := time.Until(who.prev.At.Add(back + k.m.tol))
	if back <= 0 || wait > rlMaxResetWait {
		k.t.Logf("tenant %s's reset (%s) is not waited for", who.label, check.Ms(back))
		return false
	}
	check.Sleep(k.m.ctx, wait)
	who.waited = true
	k.t.Logf("tenant %s waits out its advertised reset of %s (+%s)", who.label, check.Ms(back), check.Ms(k.m.tol))
	return true
}

// judge holds o, tenant s's next response, to the invariants against the
// tenant's previous one; it returns the broken one, or "".
func (m *rlMachine) judge(s *rlTenantState, o check.Observation) string {
	if msg := ruleViolations(o, "RL-07", headers.RateLimit, headers.RateLimitRemaining); msg != "" {
		return msg
	}
	cv, okC := quotaLeft(o)
	if okC && cv.r < 0 {
		return fmt.Sprintf("remaining is %d", cv.r)
	}
	if s.prev == nil {
		return ""
	}
	prev := *s.prev
	if s.waited && prev.Status == http.StatusTooManyRequests && o.Status == http.StatusTooManyRequests {
		return fmt.Sprintf("refused again after waiting out the reset its 429 advertised (%s)", check.Ms(prev.BackIn()))
	}
	pv, okP := quotaLeft(prev)
	if !okP || !okC {
		return ""
	}
	if sameWindow(pv, o, cv) && cv.r > pv.r {
		return fmt.Sprintf("r rose from %d to %d before the reset at %s", pv.r, cv.r, pv.end.UTC().Format(time.TimeOnly))
	}
	if m.countsRequests && prev.Status != http.StatusTooManyRequests && o.Status == http.StatusTooManyRequests {
		// Another tenant's use may have spent a global policy: then only
		// what it cannot lower promised this tenant a request, and only if
		// the refusal neither shows a shared policy spent nor omits one.
		r, promised := pv.r, true
		if m.twoTenants && s.others > 0 {
			r, promised = leastOwn(prev, pv)
			promised = promised && !sharedSpent(prev, o)
		}
		if promised && r > 0 {
			return fmt.Sprintf("429 right after a %d that advertised r=%d", prev.Status, r)
		}
	}
	if m.countsRequests && m.twoTenants && s.others > 0 {
		if name, from, to, fell := fellForOthers(prev, o, pv, cv); fell {
			return fmt.Sprintf("r%s fell from %d to %d over one request of its own and %d of the other tenant's: their use counted against it", name, from, to, s.others)
		}
	}
	return ""
}

// burstOf says how the first k requests of a burst of n were answered,
// e.g. "52 requests: 48 × 200, 4 × 429" or "the first 3 of 38 requests: 3 × 200".
func burstOf(k, n int, got map[int]int) string {
	var parts []string
	for _, code := range slices.Sorted(maps.Keys(got)) {
		parts = append(parts, fmt.Sprintf("%d × %d", got[code], code))
	}
	head := fmt.Sprintf("the first %d of %d requests", k, n)
	switch {
	case k == 1 && n == 1:
		head = "1 request"
	case k == n:
		head = fmt.Sprintf("%d requests", n)
	}
	return head + ": " + strings.Join(parts, ", ")
}

// remainingOf is the r o advertised, for the story.
func remainingOf(o *check.Observation) string {
	if o == nil {
		return "unknown"
	}
	if v, ok := quotaLeft(*o); ok {
		return fmt.Sprint(v.r)
	}
	return "unparsed"
}

// ownQuotas is the r of each limit in o that only its tenant's use may
// lower: a lone policy, or each that advertises a partition key (a global
// policy beside a per-tenant one falls for every tenant's use); with the
// legacy fields alone, the one quota, named "".
func ownQuotas(o check.Observation, v quotaView) map[string]int64 {
	if len(o.Fields.Limits) == 0 {
		return map[string]int64{"": v.r}
	}
	lone := len(o.Fields.Limits) == 1
	own := map[string]int64{}
	for _, l := range o.Fields.Limits {
		if lone || len(l.PartitionKey) > 0 {
			own[l.Name] = l.Remaining
		}
	}
	return own
}

// sharedSpent reports whether a policy that every tenant's use lowers (one
// ownQuotas leaves out of prev) may explain the refusal o: o shows such a
// policy of prev spent or omits it, or names a policy spent that was not
// one of prev's own (a server may list only the policy nearest its end).
func sharedSpent(prev, o check.Observation) bool {
	own := ownQuotas(prev, quotaView{})
	for _, l := range prev.Fields.Limits {
		if _, ok := own[l.Name]; ok {
			continue
		}
		i := slices.IndexFunc(o.Fields.Limits, func(c headers.Limit) bool { return c.Name == l.Name })
		if i < 0 || o.Fields.Limits[i].Remaining <= 0 {
			return true
		}
	}
	for _, l := range o.Fields.Limits {
		if _, ok := own[l.Name]; !ok && l.Remaining <= 0 {
			return true
		}
	}
	return false
}

// leastOwn is the least of o's own quotas; ok is false when it has none.
func leastOwn(o check.Observation, v quotaView) (r int64, ok bool) {
	for _, q := range ownQuotas(o, v) {
		if !ok || q < r {
			r, ok = q, true
		}
	}
	return r, ok
}

// fellForOthers reports an own quota (see ownQuotas) whose r fell by more
// than one between two responses of one tenant.
func fellForOthers(prev, cur check.Observation, pv, cv quotaView) (name string, from, to int64, fell bool) {
	was, now := ownQuotas(prev, pv), ownQuotas(cur, cv)
	for _, n := range slices.Sorted(maps.Keys(now)) {
		if r, ok := was[n]; ok && now[n] < r-1 {
			if n != "" {
				name = fmt.Sprintf(" of %q", n)
			}
			return name, r, now[n], true
		}
	}
	return "", 0, 0, false
}
