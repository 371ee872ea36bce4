package throttling

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/load"
)

// tenants is how many tenants a run spreads its load over, so no tenant's
// quota refuses it.
const tenants = 8

// plan is one run: requests at rate through the front proxy while the
// dependency refuses share of its effectful calls for refuse, then after
// more of load with the dependency healthy.
//
// A refusal is 429 without Retry-After: "out of quota", the rejection the
// SRE book's throttling counts (gRPC's RESOURCE_EXHAUSTED maps to it). A 503
// says the dependency is unavailable, which a circuit breaker rightly
// answers first (it opens within a handful of failures, long before a
// throttler's history fills), hiding the throttler from the count.
type plan struct {
	rate          float64
	share         float64 // of the calls refused
	refuse, after time.Duration

	start, healed time.Time
	front, calls  []faults.Entry // the run's front exchanges and effectful dependency calls
	// lag is how long after its request reached the front a call reaches
	// the dependency (median). A window counts the calls of its requests,
	// shifted by it, so a request received just before a window ends is
	// not a miss for its call landing just after.
	lag time.Duration
	// own is each front request's first call, tied to it by its key (nil
	// when none came); tied says keys tie any call to its request.
	own  []*faults.Entry
	tied bool
}

func (p *plan) String() string {
	return fmt.Sprintf("429 to %.0f %% of calls at %.0f req/s", 100*p.share, p.rate)
}

// draw fills in the rate and share of a case.
func draw(c *check.Case, cfg Config) *plan {
	return &plan{
		rate:  cfg.rate() * (1 + float64(c.IntN(26))/100),
		share: []float64{1, 0.9}[c.IntN(2)],
	}
}

// drive heals the target, then runs p with the load package. It returns
// why the run is inconclusive (check.Undriven), or nil.
func drive(ctx context.Context, c *check.Case, p *plan) error {
	h := c.Harness
	if err := c.Heal(ctx, h.Policy.Retry.HealStreak(), h.HealWithin()); err != nil {
		return fmt.Errorf("before the refusals: %w", err)
	}
	op, err := h.Operation.Prepare(check.Values{}, false)
	if err != nil {
		return err
	}
	spec := load.Spec{
		URL: h.TargetURL + op.Path, Method: op.Method,
		KeyHeader: h.Conventions.KeyHeaderName(), TenantHeader: h.Conventions.TenantHeaderName(),
		Pacing: load.Pacing{Rate: p.rate}, Duration: p.refuse + p.after,
		Timeout: max(5*time.Second, h.Conventions.BudgetCap()+time.Second), Seed: c.KeySeed(), Name: c.ID,
		Build: h.LoadBuild(),
	}
	if spec.TenantHeader != "" {
		for range tenants {
			spec.Tenants = append(spec.Tenants, c.Tenant())
		}
	}
	h.Settle(ctx)
	mark := h.Journal.LastSeq()
	m := c.EffectMatch(0)
	if p.share < 1 {
		m.Probability = p.share
	}
	_, remove, err := c.Rule(h.Dependency, m, faults.Abort{Status: http.StatusTooManyRequests, Body: "refused: out of quota"})
	if err != nil {
		return err
	}
	var once sync.Once
	heal := func() { once.Do(func() { remove(); p.healed = time.Now() }) }
	p.start = time.Now()
	if p.after > 0 {
		t := time.AfterFunc(p.refuse, heal)
		defer t.Stop()
	}
	_, err = load.Run(ctx, spec, nil)
	h.Settle(ctx)
	heal()
	p.front, p.calls = entries(h, mark)
	p.own, p.lag = tie(h, p.front, p.calls)
	p.tied = slices.ContainsFunc(p.own, func(e *faults.Entry) bool { return e != nil })
	switch {
	case err != nil:
		return err
	case len(p.front) == 0:
		return errors.New("no request reached the front proxy")
	}
	return nil
}

// entries returns the operation's front exchanges and the effectful
// dependency calls recorded after mark, each in the order received.
func entries(h *check.Harness, mark uint64) (front, calls []faults.Entry) {
	return h.FrontCalls(mark), h.EffectCalls(mark)
}

// tie finds each request's first call: the earliest call received after
// it that carries its key (the dependency's key header holds the front's,
// as is or wrapped: "org:key"); nil for a request none reached. lag is
// the median delay from a request to that call, 0 when none was tied.
func tie(h *check.Harness, front, calls []faults.Entry) (own []*faults.Entry, lag time.Duration) {
	byKey := map[string][]*faults.Entry{}
	for i := range calls {
		if k := calls[i].Header(h.Conventions.DependencyKeyName()); k != "" {
			byKey[k] = append(byKey[k], &calls[i])
		}
	}
	first := func(key string, after time.Time) *faults.Entry {
		var best *faults.Entry
		pick := func(cs []*faults.Entry) {
			for _, c := range cs {
				if !c.Received.Before(after) && (best == nil || c.Received.Before(best.Received)) {
					best = c
				}
			}
		}
		if cs, ok := byKey[key]; ok {
			pick(cs)
			return best
		}
		for k, cs := range byKey {
			if strings.Contains(k, key) {
				pick(cs)
			}
		}
		return best
	}
	own = make([]*faults.Entry, len(front))
	var ds []time.Duration
	for i, e := range front {
		if key := e.Header(h.Conventions.KeyHeaderName()); key != "" {
			if c := first(key, e.Received); c != nil {
				own[i] = c
				ds = append(ds, c.Received.Sub(e.Received))
			}
		}
	}
	if len(ds) == 0 {
		return own, 0
	}
	slices.Sort(ds)
	return own, ds[len(ds)/2]
}

// reach tallies p's requests received at the front in [from, to) as TH-02
// counts them: a request's call is its own however late it landed (a
// stall at the end of the load once delayed the last few past the cut),
// so calls are the requests whose first call came, and accepts those
// whose first call was accepted. Without keys tying calls to requests, it
// is count's shifted window.
func (p *plan) reach(from, to time.Time) tally {
	if !p.tied {
		return p.count(from, to)
	}
	var t tally
	for i, e := range p.front {
		if e.Received.Before(from) || !e.Received.Before(to) {
			continue
		}
		t.requests++
		if c := p.own[i]; c != nil {
			t.calls++
			if accepted(c.Status) {
				t.accepts++
			}
		}
	}
	return t
}

// tally is what a window of a run counts: requests received at the front,
// calls received at the dependency, and the calls it accepted.
type tally struct {
	requests, calls, accepts int
}

// count tallies p's requests received at the front in [from, to), and
// the calls received at the dependency in that window shifted by p.lag,
// open-ended when it holds the run's last request.
func (p *plan) count(from, to time.Time) tally {
	in := func(e faults.Entry, from, to time.Time) bool {
		return !e.Received.Before(from) && e.Received.Before(to)
	}
	var t tally
	var last time.Time
	for _, e := range p.front {
		if in(e, from, to) {
			t.requests++
		}
		if e.Received.After(last) {
			last = e.Received
		}
	}
	callsTo := to.Add(p.lag)
	if to.After(last) {
		// The window holds the run's last request: every later call is
		// one of its requests', however late a stall at the end of the
		// load let it land (front latencies of 300-800 ms there pushed
		// the last calls past the cut, and TH-02 failed the correct
		// reference).
		callsTo = time.Unix(1<<40, 0)
	}
	for _, e := range p.calls {
		if in(e, from.Add(p.lag), callsTo) {
			t.calls++
			if accepted(e.Status) {
				t.accepts++
			}
		}
	}
	return t
}

// backAfter is how long after healing the calls came back: the start of
// the first of step's bins in [healed, end) from which every bin with
// requests saw at least (1 − miss) of them reach the dependency; ok is
// false when the last bin did not.
func (p *plan) backAfter(end time.Time, step time.Duration, miss float64) (time.Duration, bool) {
	back, ok := time.Duration(0), false
	for from := p.healed; from.Before(end); from = from.Add(step) {
		to := from.Add(step)
		if to.After(end) {
			to = end
		}
		t := p.reach(from, to)
		if t.requests == 0 {
			continue
		}
		if !recovered(t, miss) {
			ok = false
			continue
		}
		if !ok {
			back, ok = from.Sub(p.healed), true
		}
	}
	return back, ok
}

// evidence is p's exchanges received in [from, to).
func (p *plan) evidence(from, to time.Time) []faults.Entry {
	var out []faults.Entry
	for _, e := range append(slices.Clone(p.front), p.calls...) {
		if !e.Received.Before(from) && e.Received.Before(to) {
			out = append(out, e)
		}
	}
	return out
}

// accepted reports whether a dependency status accepted the call: an
// answer that is not a refusal (429, 503) nor a failure to answer.
func accepted(status int) bool {
	return status >= 200 && status < 500 && status != http.StatusTooManyRequests
}

// throttledLimit is TH-01's bound on the calls of a window. Eq. 21-1
// counted as the SRE book counts it, over every request the application
// attempted, locally rejected ones included, lets about K·accepts through.
// Counted over the calls made alone (failsafe-go's adaptivethrottler: a
// rejected call records nothing), it lets through K times the accepted
// share of the calls, of every attempt offered: c = K·(a/c)·offered, so
// c = √(K·a·offered). That bounds the book's count too, so a target is
// held to the larger. The declared cap lets at least (1 − max_rejection)
// of the attempts through; share·requests + floor is the tolerance.
//
// The attempts a request offers are the declared cap (policy.retry): what
// a throttler rejected locally leaves no trace to count, so a target that
// retries a refusal less than it declares is held to its declaration (one
// that does not retry declares max_attempts: 1).
func throttledLimit(t tally, k, maxRejection float64, attempts int, share float64, floor int) float64 {
	offered := float64(t.requests * attempts)
	eq := max(k*float64(t.accepts), math.Sqrt(k*float64(t.accepts)*offered))
	return eq + (1-maxRejection)*offered + share*float64(t.requests) + float64(floor)
}

// recovered reports whether calls reached the dependency at the offered
// rate: at least (1 − miss) of the requests.
func recovered(t tally, miss float64) bool {
	return float64(t.calls) >= (1-miss)*float64(t.requests)
}

// rest leaves the target as healthy as it was found: a heal, and when that
// fails (the heal's own traffic can keep a throttler's history of the
// case's refusals from ageing), a quiet wait of the declared recovery and
// a heal again.
func rest(ctx context.Context, c *check.Case) error {
	h := c.Harness
	within := h.Policy.Throttling.Recovery
	if within <= 0 {
		within = h.HealWithin()
	}
	if c.Heal(ctx, h.Policy.Retry.HealStreak(), within) == nil {
		return nil
	}
	check.Sleep(ctx, h.Policy.Throttling.Recovery)
	return c.Heal(ctx, h.Policy.Retry.HealStreak(), h.HealWithin())
}
