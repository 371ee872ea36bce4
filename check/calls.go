package check

import (
	"cmp"
	"net/http"
	"slices"
	"time"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/headers"
)

// EffectCalls returns the operation's effectful dependency calls (its
// effect method and path) recorded after mark, in the order they were
// received.
func (h *Harness) EffectCalls(mark uint64) []faults.Entry {
	filters := []faults.Filter{faults.BySide("dependency"), faults.ByMethod(cmp.Or(h.Operation.EffectMethod, http.MethodPost))}
	if h.Operation.EffectPath != "" {
		filters = append(filters, faults.ByPath(h.Operation.EffectPath))
	}
	return byReceived(h.Journal.After(mark, filters...))
}

// FrontCalls returns the operation's exchanges at the front proxy recorded
// after mark, in the order they were received; none when the operation
// cannot be prepared.
func (h *Harness) FrontCalls(mark uint64) []faults.Entry {
	op, err := h.Operation.Prepare(Values{}, false)
	if err != nil {
		return nil
	}
	return byReceived(h.Journal.After(mark, faults.BySide("front"), faults.ByMethod(op.Method), faults.ByPath(op.Path)))
}

func byReceived(es []faults.Entry) []faults.Entry {
	slices.SortStableFunc(es, func(a, b faults.Entry) int { return a.Received.Compare(b.Received) })
	return es
}

// EntryBudget reads the deadline a journaled request carried, in any of
// the deadline headers the journal records (headers.Timeout's order); ok
// is false when it carried none, and err says a present one is malformed.
func EntryBudget(e faults.Entry) (d time.Duration, ok bool, err error) {
	hd := http.Header{}
	for k, v := range e.Headers {
		hd[k] = []string{v}
	}
	return headers.Timeout(hd)
}
