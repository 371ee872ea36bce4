package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/resilcheck/resilcheck/faults"
)

// trace is one case's requests followed hop by hop, for blaming a tier.
type trace struct {
	h     *Harness
	keys  []string   // the key headers the target reads
	tiers []string   // every tier in order: hops[0].From, then each hop's To
	all   []request  // every request of the case at the front
	reqs  []*request // those the failure gives as evidence (all when it gives none)
	hops  [][]faults.Entry
	deps  int // dependency calls in the case
}

// request is one request at the front and what each hop carried for it.
// Ambiguous says a hop exchange could have been its or another's, in
// flight together with the same key or none: rules that follow one
// request leave it out.
type request struct {
	front     faults.Entry
	hops      [][]faults.Entry // per hop, in order received
	ambiguous bool
}

// newTrace follows the front requests of entries through the hops; focus
// narrows the requests the rules judge to its front exchanges (none: all).
func (h *Harness) newTrace(entries, focus []faults.Entry) *trace {
	t := &trace{h: h, keys: h.keyHeaders(), tiers: []string{h.Hops[0].From}, hops: make([][]faults.Entry, len(h.Hops))}
	for _, hp := range h.Hops {
		t.tiers = append(t.tiers, hp.To)
	}
	inFocus := map[string]bool{}
	for _, e := range focus {
		if e.Side == "front" {
			inFocus[e.ID] = true
		}
	}
	entries = byReceived(slices.Clone(entries))
	for _, e := range entries {
		switch {
		case e.Side == "front":
			t.all = append(t.all, request{front: e, hops: make([][]faults.Entry, len(h.Hops))})
		case e.Side == "dependency":
			t.deps++
		}
	}
	for i := range t.all {
		if len(inFocus) == 0 || inFocus[t.all[i].front.ID] {
			t.reqs = append(t.reqs, &t.all[i])
		}
	}
	for i, hp := range h.Hops {
		for _, e := range entries {
			if e.Side != hp.Side() {
				continue
			}
			t.hops[i] = append(t.hops[i], e)
			if r := t.owner(e); r != nil {
				r.hops[i] = append(r.hops[i], e)
			}
		}
	}
	return t
}

// keyHeaders are the headers the target reads idempotency keys from.
func (h *Harness) keyHeaders() []string {
	keys := []string{h.Conventions.KeyHeaderName()}
	for _, op := range append([]Operation{h.Operation}, h.KeyedOperations...) {
		if k := h.KeyHeaderOf(op); !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// key is the idempotency key e carried, or "".
func (t *trace) key(e faults.Entry) string {
	for _, k := range t.keys {
		if v := e.Header(k); v != "" {
			return v
		}
	}
	return ""
}

// owner is the request a hop exchange belongs to: of the requests with
// its method in flight at the front of the same copy of the target when
// it arrived, the only one, or the only one with its idempotency key (a
// key may come back in a later request, a replay). An exchange whose key
// none of them carries is none of theirs (a tier's own request); where
// several remain, they are marked ambiguous.
func (t *trace) owner(e faults.Entry) *request {
	var inFlight []*request
	for i := range t.all {
		f := t.all[i].front
		if f.Method != e.Method || copyOf(f) != copyOf(e) ||
			e.Received.Before(f.Received) || !f.Finished.IsZero() && e.Received.After(f.Finished) {
			continue
		}
		inFlight = append(inFlight, &t.all[i])
	}
	k := t.key(e)
	if k != "" {
		inFlight = slices.DeleteFunc(inFlight, func(r *request) bool {
			fk := t.key(r.front)
			return fk != "" && fk != k
		})
	}
	if len(inFlight) == 1 {
		return inFlight[0]
	}
	for _, r := range inFlight {
		r.ambiguous = true
	}
	return nil
}

// copyOf is the copy of the target an exchange was journaled on: the
// prefix of its ID before its side ("c2-" of "c2-hop:service-7"), "" for
// a run with one copy.
func copyOf(e faults.Entry) string {
	if i := strings.Index(e.ID, e.Side); i > 0 {
		return e.ID[:i]
	}
	return ""
}

// followed are the requests whose every hop exchange is known.
func (t *trace) followed() []*request {
	var out []*request
	for _, r := range t.reqs {
		if !r.ambiguous {
			out = append(out, r)
		}
	}
	return out
}

// unfollowed counts the requests judged that could not be followed.
func (t *trace) unfollowed() int { return len(t.reqs) - len(t.followed()) }

// above is what the tier above hop i received for r: at the front, the
// copies the front proxy delivered.
func (r request) above(i int) int {
	if i == 0 {
		return delivered([]faults.Entry{r.front})
	}
	return delivered(r.hops[i-1])
}

// delivered is how many copies of the requests es a proxy passed on to the
// tier behind it: one each, none for one it answered itself, two for one
// it duplicated.
func delivered(es []faults.Entry) int {
	n := 0
	for _, e := range es {
		n += e.UpstreamCalls
	}
	return n
}

// HopEntries returns, hop by hop, the exchanges recorded after mark that
// carried a request with method and, where the exchange carries a key, key:
// what each tier sent the next for one request sent alone.
func (h *Harness) HopEntries(mark uint64, method, key string) [][]faults.Entry {
	keys := h.keyHeaders()
	out := make([][]faults.Entry, len(h.Hops))
	for i, hp := range h.Hops {
		out[i] = h.Journal.After(mark, faults.BySide(hp.Side()), faults.ByMethod(method), func(e *faults.Entry) bool {
			for _, k := range keys {
				if v := e.Header(k); v != "" {
					return key == "" || v == key
				}
			}
			return true
		})
	}
	return out
}

// Resent lays a request sent alone at the first tier whose hop carried
// more of it than the tier received (one at the front, then what each hop
// delivered), counting a hop's exchanges with count (len, or Attempts' to
// take hedged copies as one).
func (h *Harness) Resent(carried [][]faults.Entry, count func([]faults.Entry) int) (Blame, bool) {
	above := 1
	for i, hp := range h.Hops {
		if n := count(carried[i]); above > 0 && n > above {
			return Blame{Tier: hp.From, Why: resentWhy(hp, n, above, "")}, true
		}
		above = delivered(carried[i])
	}
	return Blame{}, false
}

// resentWhy says a hop carried n requests (with key k, if given) for the
// above its tier received.
func resentWhy(hp Hop, n, above int, k string) string {
	with := ""
	if k != "" {
		with = " with the key " + k
	}
	return fmt.Sprintf("the hop %s carried %d requests%s for the %d %s received: %s re-sent them", hp.Name(), n, with, above, hp.From, hp.From)
}
