package check

import (
	"cmp"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
)

// Blame names the tier of a multi-tier target a failure lies with, and the
// per-hop evidence that says so. Tier is empty when the hops' journal does
// not tell; Why then says so.
type Blame struct {
	Tier string
	Why  string
}

// String renders the blame as failures append it to what they observed.
func (b Blame) String() string {
	if b.Tier == "" {
		return "tier: cannot tell (" + b.Why + ")"
	}
	return "tier: " + b.Tier + " (" + b.Why + ")"
}

// A BlameRule reads the exchanges of a failed case on a multi-tier target
// and names the tier the failure lies with, or reports false when its kind
// of evidence is not there. A check's rules (Check.Blame, else its suite's,
// else DefaultBlame) are tried in order; the first that finds wins. Rules
// are the kit's values below; the zero BlameRule finds nothing.
type BlameRule struct {
	Name string
	find func(t *trace) (Blame, bool)
}

// The blame rules.
var (
	// BlameResends: a hop that carried more requests than the tier above
	// it received. That tier re-sent them (RFC 9110 §9.2.2).
	BlameResends = BlameRule{Name: "resends", find: (*trace).resends}
	// BlameCancel: the caller left, and a tier kept its own request to the
	// next one open: it did not pass the disconnect on.
	BlameCancel = BlameRule{Name: "cancel", find: (*trace).cancel}
	// BlameBudget: the request carried a deadline, and a tier forwarded none
	// to the next, or a larger one than it was given.
	BlameBudget = BlameRule{Name: "budget", find: (*trace).budget}
	// BlameCalls: every hop carried one request per request it was given;
	// the calls to the dependency are the last tier's, whose dependencies
	// the spec declares.
	BlameCalls = BlameRule{Name: "calls", find: (*trace).calls}
	// BlameAnswer: the tier whose answer the caller got (the deepest one
	// every tier above passed on with its status), or the tier above that
	// dropped its Retry-After.
	BlameAnswer = BlameRule{Name: "answer", find: (*trace).answer}
	// BlameLimiter: the tier that answered the case's 429s itself, whose
	// limiter the rate-limit fields describe.
	BlameLimiter = BlameRule{Name: "limiter", find: (*trace).limiter}
)

// DefaultBlame is the rules of a check whose suite and itself name none.
var DefaultBlame = []BlameRule{BlameResends, BlameCancel, BlameBudget, BlameAnswer}

// BlameFor returns which tier the failed case's exchanges blame, by rules:
// entries are the case's (every side), focus the IDs of the exchanges its
// result gives as evidence (the front ones among them narrow the requests
// traced; none means every request of the case).
func (h *Harness) BlameFor(rules []BlameRule, entries []faults.Entry, focus []faults.Entry) Blame {
	if len(h.Hops) == 0 {
		return Blame{Why: "the target declares one tier"}
	}
	t := h.newTrace(entries, focus)
	if len(t.reqs) == 0 {
		return Blame{Why: "no request of the case reached the first tier"}
	}
	for _, r := range rules {
		if r.find == nil {
			continue
		}
		if b, ok := r.find(t); ok {
			return b
		}
	}
	if n := t.unfollowed(); n > 0 {
		return Blame{Why: fmt.Sprintf("%d of the %d requests judged could not be followed hop by hop: they were in flight together with no key to tell them apart", n, len(t.reqs))}
	}
	return Blame{Why: "every hop carried one request per request and passed its answer on unchanged"}
}

// resends finds a hop that carried more of a request than the tier above
// it received: key by key, then request by request.
func (t *trace) resends() (Blame, bool) {
	if b, ok := t.resendsByKey(); ok {
		return b, true
	}
	for _, r := range t.followed() {
		for i, hp := range t.h.Hops {
			if n, up := len(r.hops[i]), r.above(i); up > 0 && n > up {
				return Blame{Tier: hp.From, Why: resentWhy(hp, n, up, "")}, true
			}
		}
	}
	return Blame{}, false
}

// resendsByKey compares, key by key, the requests the front received with
// the requests each hop carried: concurrent copies of one key cannot be
// followed one by one, but their counts can.
func (t *trace) resendsByKey() (Blame, bool) {
	withKey := func(es []faults.Entry, k string) []faults.Entry {
		var out []faults.Entry
		for _, e := range es {
			if t.key(e) == k {
				out = append(out, e)
			}
		}
		return out
	}
	var fronts []faults.Entry
	for _, r := range t.all {
		fronts = append(fronts, r.front)
	}
	seen := map[string]bool{}
	for _, r := range t.reqs {
		k := t.key(r.front)
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		above := delivered(withKey(fronts, k))
		for i, hp := range t.h.Hops {
			carried := withKey(t.hops[i], k)
			if n := len(carried); above > 0 && n > above {
				return Blame{Tier: hp.From, Why: resentWhy(hp, n, above, k)}, true
			}
			above = delivered(carried)
		}
	}
	return Blame{}, false
}

// cancel finds a tier that kept its request to the next open after the
// one it was serving went away.
func (t *trace) cancel() (Blame, bool) {
	for _, r := range t.followed() {
		gone := r.front.ClientGone
		for i, hp := range t.h.Hops {
			if gone.IsZero() || len(r.hops[i]) == 0 {
				break
			}
			e := r.hops[i][len(r.hops[i])-1]
			if e.ClientGone.IsZero() && e.Finished.Sub(gone) > t.h.Slack() {
				return Blame{Tier: hp.From, Why: fmt.Sprintf("the caller left at %s; %s kept its request to %s open until %s: it did not pass the disconnect on",
					at(r.front, gone), hp.From, hp.To, at(r.front, e.Finished))}, true
			}
			gone = e.ClientGone
		}
	}
	return Blame{}, false
}

// budget finds a tier that forwarded no deadline, or a larger one than it
// was given.
func (t *trace) budget() (Blame, bool) {
	for _, r := range t.followed() {
		budget, ok, err := EntryBudget(r.front)
		if !ok || err != nil {
			continue
		}
		for i, hp := range t.h.Hops {
			if len(r.hops[i]) == 0 {
				break
			}
			e := r.hops[i][0]
			b, ok, err := EntryBudget(e)
			switch {
			case !ok || err != nil:
				return Blame{Tier: hp.From, Why: fmt.Sprintf("the request carried a budget of %s; %s forwarded none to %s", Ms(budget), hp.From, hp.To)}, true
			case b > budget:
				return Blame{Tier: hp.From, Why: fmt.Sprintf("%s was given a budget of %s and forwarded %s to %s", hp.From, Ms(budget), Ms(b), hp.To)}, true
			}
			budget = b
		}
	}
	return Blame{}, false
}

// calls lays the dependency calls at the last tier once every request
// judged is accounted for: followed hop by hop, or keyed (resendsByKey
// counted those), and no hop carried more than it was given.
func (t *trace) calls() (Blame, bool) {
	last := len(t.h.Hops) - 1
	if t.deps == 0 || len(t.hops[last]) == 0 {
		return Blame{}, false
	}
	for _, r := range t.reqs {
		if r.ambiguous && t.key(r.front) == "" {
			return Blame{}, false
		}
		for i := range t.h.Hops {
			if !r.ambiguous && len(r.hops[i]) > r.above(i) {
				return Blame{}, false
			}
		}
	}
	tier := t.tiers[len(t.tiers)-1]
	return Blame{Tier: tier, Why: fmt.Sprintf("every hop carried one request per request it was given; the dependency calls are %s's", tier)}, true
}

// answer finds the tier whose answer the caller got: the deepest one every
// tier above passed on unchanged, or the one that changed its Retry-After.
func (t *trace) answer() (Blame, bool) {
	reqs := t.followed()
	for i := len(reqs) - 1; i >= 0; i-- {
		r := reqs[i]
		if r.front.Status == 0 {
			continue
		}
		// chain[k] is the answer tier k gave: the front's, then each hop's.
		chain := []faults.Entry{r.front}
		for j := range t.h.Hops {
			if len(r.hops[j]) == 0 {
				break
			}
			e := r.hops[j][len(r.hops[j])-1]
			if !sameAnswer(e, chain[len(chain)-1]) {
				break
			}
			chain = append(chain, e)
		}
		origin := len(chain) - 1
		for k := origin; k > 0; k-- {
			ra, above := chain[k].ResponseHeader("Retry-After"), chain[k-1].ResponseHeader("Retry-After")
			switch {
			case ra != "" && above == "":
				return Blame{Tier: t.tiers[k-1], Why: fmt.Sprintf("%s answered %d with Retry-After: %s; %s passed the %d on without it", t.tiers[k], chain[k].Status, ra, t.tiers[k-1], chain[k].Status)}, true
			case ra != above:
				return Blame{Tier: t.tiers[k-1], Why: fmt.Sprintf("%s answered %d with Retry-After: %s; %s passed it on as Retry-After: %s", t.tiers[k], chain[k].Status, cmp.Or(ra, "(none)"), t.tiers[k-1], above)}, true
			}
		}
		tier := t.tiers[origin]
		if origin == len(t.tiers)-1 {
			return Blame{Tier: tier, Why: fmt.Sprintf("the %s came from %s, and every tier above passed it on", AnswerText(r.front), tier)}, true
		}
		next := r.hops[origin]
		if len(next) == 0 {
			return Blame{Tier: tier, Why: fmt.Sprintf("%s answered %s itself: %s saw no request", tier, AnswerText(r.front), t.tiers[origin+1])}, true
		}
		return Blame{Tier: tier, Why: fmt.Sprintf("%s answered %s where %s had answered it %s", tier, answerText(r.front), t.tiers[origin+1], answerText(next[len(next)-1]))}, true
	}
	return Blame{}, false
}

// sameAnswer reports whether a tier passed the answer b on as a: the same
// status, and the same Content-Type where both were journaled (a tier that
// puts an error page of its own in place of the body keeps the status).
func sameAnswer(a, b faults.Entry) bool {
	ca, cb := a.ResponseHeader("Content-Type"), b.ResponseHeader("Content-Type")
	return AnswerStatus(a) == AnswerStatus(b) && (ca == "" || cb == "" || mediaType(ca) == mediaType(cb))
}

// mediaType is a Content-Type without its parameters.
func mediaType(ct string) string {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// answerText renders an answer's status, and its media type when known.
func answerText(e faults.Entry) string {
	if _, ok := grpcAnswer(e); ok {
		return AnswerText(e)
	}
	if ct := e.ResponseHeader("Content-Type"); ct != "" && e.Status != 0 {
		return fmt.Sprintf("%d (%s)", e.Status, mediaType(ct))
	}
	return statusText(e.Status)
}

// limiter finds the tier that answered the case's 429s itself.
func (t *trace) limiter() (Blame, bool) {
	for _, r := range t.followed() {
		if AnswerStatus(r.front) != http.StatusTooManyRequests {
			continue
		}
		k := 0 // the tier that answered the 429: the deepest that passed it on
		for k < len(t.h.Hops) && len(r.hops[k]) > 0 && AnswerStatus(r.hops[k][len(r.hops[k])-1]) == http.StatusTooManyRequests {
			k++
		}
		tier := t.tiers[k]
		return Blame{Tier: tier, Why: fmt.Sprintf("%s answered the case's 429s, so its limiter is the one its rate-limit fields describe", tier)}, true
	}
	return Blame{}, false
}

// statusText renders a status, "nothing" for none.
func statusText(s int) string {
	if s == 0 {
		return "nothing"
	}
	return fmt.Sprintf("%d", s)
}

// at renders t as an offset into the request's exchange.
func at(front faults.Entry, t time.Time) string {
	return "+" + Ms(t.Sub(front.Received))
}

// BlameInnermost lays a failed r at the innermost of h's tiers (the one
// the spec lists last), saying why, when the target has more than one: for
// suites whose failures no tier's exchanges show (a queue consumer's, an
// outbox's), made by the tier that does the work. Other results are
// returned as they are.
func BlameInnermost(h *Harness, r Result, why string) Result {
	if r.Status != reports.StatusFail || len(h.Hops) == 0 {
		return r
	}
	b := Blame{Tier: h.Hops[len(h.Hops)-1].To, Why: why}
	r.Tier, r.Observed = b.Tier, r.Observed+"; "+b.String()
	return r
}
