package check

import (
	"cmp"
	"net/http"
	"slices"

	"github.com/resilcheck/resilcheck/faults"
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
