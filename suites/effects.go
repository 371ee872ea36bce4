package suites

import (
	"context"
	"net/http"
	"slices"

	"github.com/resilcheck/resilcheck/faults"
)

// effects counts the side effects that reached the dependency, the way a
// ledger would: distinct keys the target forwarded, plus every keyed-less
// call, among the effectful calls the dependency accepted (DESIGN: side
// effects are keyed by the key the target forwards).
type effects struct {
	total   int
	byKey   map[string]int // successful effectful calls per forwarded key
	unkeyed int
	entries []faults.Entry // the effectful calls that took effect
}

// effects counts the effects recorded since the check began, once the
// proxies are quiet so every finished exchange is in the journal.
func (c *Case) effects(ctx context.Context) effects {
	h := c.h
	h.settle(ctx)
	method := or(h.Operation.EffectMethod, http.MethodPost)
	filters := []faults.Filter{faults.BySide("dependency"), faults.ByMethod(method)}
	if h.Operation.EffectPath != "" {
		filters = append(filters, faults.ByPath(h.Operation.EffectPath))
	}
	ef := effects{byKey: map[string]int{}}
	for _, e := range h.Journal.After(c.mark, filters...) {
		if !tookEffect(e) {
			continue
		}
		ef.entries = append(ef.entries, e)
		k := e.Header(h.Conventions.depKeyHeader())
		if k == "" {
			ef.unkeyed++
			continue
		}
		ef.byKey[k]++
	}
	ef.total = len(ef.byKey) + ef.unkeyed
	return ef
}

// tookEffect reports whether the dependency accepted at least one copy of
// the call: an upstream 2xx, even if the proxy then lost the answer, or a
// stand-in 2xx when there is no upstream.
func tookEffect(e faults.Entry) bool {
	if slices.ContainsFunc(e.UpstreamStatuses, is2xx) {
		return true
	}
	return len(e.UpstreamStatuses) == 0 && e.UpstreamCalls == 0 && is2xx(e.Status)
}

func is2xx(s int) bool { return s >= 200 && s < 300 }
