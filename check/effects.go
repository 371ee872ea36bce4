package check

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/resilcheck/resilcheck/faults"
)

// Effects counts the side effects of a case through the counters the
// target declares. The ledger counts effects that reached the dependency:
// distinct keys the target forwarded, plus every keyless call, among the
// effectful calls the dependency accepted (a side effect is identified by
// the key the target forwards). A key the target had forwarded before the
// case began is not the case's: its call is earlier work that reached the
// dependency late, and is counted in Earlier only. The probe asks the
// target for its own count per (tenant, key) the case used; it cannot see
// a keyless request's effects. total is the ledger's count, or the probe's
// when there is no ledger.
type Effects struct {
	Total   int
	Ledger  bool           // the ledger counted
	ByKey   map[string]int // successful effectful calls per forwarded key
	Unkeyed int
	// Earlier counts the accepted calls in the case's window whose key the
	// target had forwarded before the case began: a losing hedged copy or
	// a retry of an earlier request that reached the dependency after the
	// proxies went quiet. They are not in Total, ByKey or Entries.
	Earlier int
	Entries []faults.Entry // the case's effectful calls that took effect
	Probe   int            // the probe's count; -1 when there is no probe
}

// Effects counts the effects since the case began, once the proxies are
// quiet so every finished exchange is in the journal. When both counters
// are declared and disagree, the disagreement is recorded on the case: one
// of them is wrong about the effects, so the check cannot certify a count
// (idempotencyCheck fails it).
func (c *Case) Effects(ctx context.Context) Effects {
	h := c.Harness
	h.Settle(ctx)
	ef := Effects{ByKey: map[string]int{}, Probe: -1}
	if !h.NoLedger {
		c.ledgerCount(&ef)
	}
	if h.Probe == nil {
		return ef
	}
	n, err := c.probeCount(ctx)
	switch {
	case err != nil:
		c.Disagree(fmt.Sprintf("the probe did not answer: %v", err))
	case !ef.Ledger:
		ef.Total = n
	case n != ef.Total:
		c.Disagree(fmt.Sprintf("the ledger counted %d effects, the target's probe %d", ef.Total, n))
	}
	ef.Probe = n
	return ef
}

// ledgerCount counts the case's effects at the dependency into ef: the
// effectful calls recorded in the case's window that the dependency
// accepted, one per distinct forwarded key and one per keyless call. The
// window is a span of the journal, not an ownership: a call the target
// began for an earlier case (a hedged copy that lost, sent as its winner
// was answered) may reach the dependency only after the proxies went
// quiet and the window opened. Such a call carries a key the target
// forwarded before the window, and is counted in ef.Earlier instead, so a
// neighbour's straggler is never taken for a second effect of this case.
// A keyless call cannot be told apart and counts.
func (c *Case) ledgerCount(ef *Effects) {
	h := c.Harness
	method := cmp.Or(h.Operation.EffectMethod, http.MethodPost)
	filters := []faults.Filter{faults.BySide("dependency"), faults.ByMethod(method)}
	if h.Operation.EffectPath != "" {
		filters = append(filters, faults.ByPath(h.Operation.EffectPath))
	}
	name := h.Conventions.DependencyKeyName()
	ef.Ledger = true
	var before map[string]bool // built at the first keyed call
	for _, e := range h.Journal.After(c.mark, filters...) {
		if !TookEffect(e) {
			continue
		}
		k := e.Header(name)
		if k != "" && before == nil {
			before = c.forwardedBefore()
		}
		switch {
		case k == "":
			ef.Unkeyed++
		case before[k]:
			ef.Earlier++
			continue
		default:
			ef.ByKey[k]++
		}
		ef.Entries = append(ef.Entries, e)
	}
	ef.Total = len(ef.ByKey) + ef.Unkeyed
}

// forwardedBefore is Harness.KeysBefore at the case's mark, built once a
// window: the journal up to the mark no longer changes.
func (c *Case) forwardedBefore() map[string]bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.before == nil || c.beforeMark != c.mark {
		c.before, c.beforeMark = c.Harness.KeysBefore(c.mark), c.mark
	}
	return c.before
}

// KeysBefore returns the dependency keys of the effectful calls the
// journal recorded up to mark, with effect or not: what the target had
// forwarded by then (a ring journal forgets its oldest). A later call with
// one is a straggler of an earlier request. It never returns nil.
func (h *Harness) KeysBefore(mark uint64) map[string]bool {
	method := cmp.Or(h.Operation.EffectMethod, http.MethodPost)
	filters := []faults.Filter{func(e *faults.Entry) bool { return e.Seq <= mark }, faults.BySide("dependency"), faults.ByMethod(method)}
	if h.Operation.EffectPath != "" {
		filters = append(filters, faults.ByPath(h.Operation.EffectPath))
	}
	name, keys := http.CanonicalHeaderKey(h.Conventions.DependencyKeyName()), map[string]bool{}
	// Collect while the journal is walked and keep no entry: copying every
	// call of a long run to read one header of each would be waste.
	collect := func(e *faults.Entry) bool {
		if k := e.Headers[name]; k != "" {
			keys[k] = true
		}
		return false
	}
	h.Journal.After(0, append(filters, collect)...)
	return keys
}

// probeCount sums the probe's counts over every (tenant, key) the case
// handed out or tracked.
func (c *Case) probeCount(ctx context.Context) (int, error) {
	total := 0
	for _, v := range c.pairs() {
		n, err := c.Harness.Probe(ctx, v)
		if err != nil {
			return 0, fmt.Errorf("tenant %q, key %q: %w", v.Tenant, v.Key, err)
		}
		total += n
	}
	return total, nil
}

// pairs returns the (tenant, key) pairs the case sent: every drawn key as
// the front proxy journaled it, with the tenant that request carried, and
// those tracked explicitly. Pairs come from the requests, not from every key
// with every tenant, because a probe that counts by key alone would count
// one key's effect once per tenant the case handed out.
func (c *Case) pairs() []Values {
	c.mu.Lock()
	keys, tracked := slices.Clone(c.handed), slices.Clone(c.tracked)
	c.mu.Unlock()
	th := c.Harness.Conventions.TenantHeaderName()
	var out []Values
	for _, e := range c.Harness.Journal.After(c.mark, faults.BySide("front")) {
		// Any journaled field may carry the key: operations name their own
		// key header, and sf-string keys arrive quoted.
		for _, val := range e.Headers {
			k := strings.Trim(val, `"`)
			if !slices.Contains(keys, k) {
				continue
			}
			v := Values{Key: k}
			if th != "" {
				v.Tenant = e.Header(th)
			}
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
			break
		}
	}
	for _, v := range tracked {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// Track adds a (tenant, key) the case used without drawing it from key and
// tenant, for the probe to count.
func (c *Case) Track(tenant, key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v := Values{Key: key, Tenant: tenant}
	if !slices.Contains(c.tracked, v) {
		c.tracked = append(c.tracked, v)
	}
}

// Disagreed returns the case's disagreements between counters, or "".
func (c *Case) Disagreed() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.disagreements, "; ")
}

// Disagree records that the case's effect counters disagreed (s says how),
// as Effects does; a check that counts effects fails while Disagreed is
// not empty.
func (c *Case) Disagree(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.disagreements = append(c.disagreements, s)
}

// TookEffect reports whether the dependency accepted at least one copy of
// the call: an upstream or stand-in 2xx, even if the proxy then lost the
// answer, or a 2xx the proxy's own rule answered without forwarding. A
// gRPC answer is HTTP 200 whatever its outcome, so it counts only when its
// grpc-status is 0 (OK). One whose status never came (its body was cut
// short, so its trailers were never read) counts as the 2xx it began as:
// the journal cannot tell, and most gRPC servers refuse a call in a
// Trailers-Only answer, whose status is known at once.
func TookEffect(e faults.Entry) bool {
	for i, s := range e.UpstreamStatuses {
		if code, ok := e.UpstreamGRPC(i); is2xx(s) && (!ok || code == 0) {
			return true
		}
	}
	return len(e.UpstreamStatuses) == 0 && e.UpstreamCalls == 0 && is2xx(AnswerStatus(e))
}

func is2xx(s int) bool { return s >= 200 && s < 300 }

func (ef Effects) String() string {
	var parts []string
	if ef.Ledger {
		s := fmt.Sprintf("ledger: %d distinct forwarded keys, %d calls without a key", len(ef.ByKey), ef.Unkeyed)
		if ef.Earlier > 0 {
			s += fmt.Sprintf(" (%d late calls with keys forwarded before the case left out)", ef.Earlier)
		}
		parts = append(parts, s)
	}
	if ef.Probe >= 0 {
		parts = append(parts, fmt.Sprintf("probe: %d", ef.Probe))
	}
	return strings.Join(parts, "; ")
}
