package suites

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/headers"
)

// rbRule places a rule on p and returns a function that removes it early;
// done removes it in any case.
func (c *casework) rbRule(p *faults.Proxy, m faults.Match, f faults.Fault) (remove func(), err error) {
	name := fmt.Sprintf("%s-%d", c.id, c.next())
	if err := p.Rules().Add(faults.Rule{Name: name, Match: m, Fault: f}); err != nil {
		return nil, fmt.Errorf("suites: placing fault %s: %w", name, err)
	}
	c.mu.Lock()
	c.rules = append(c.rules, placed{p, name})
	c.mu.Unlock()
	return func() { p.Rules().Remove(name) }, nil
}

// healStreak is how many requests in a row must succeed before a check
// starts: a count-based breaker forgets earlier failures once they leave
// its window (the reference's window is 10 calls).
const healStreak = 10

// rbHeal brings the target back to health before a check: it sends fresh
// operations until healStreak in a row succeed, waiting out Retry-After
// (at most 1.5 s each) while a breaker is open. It fails after 6 s.
func (c *casework) rbHeal(ctx context.Context) error {
	deadline := time.Now().Add(6 * time.Second)
	streak, sent := 0, 0
	var last reply
	for streak < healStreak {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("the target did not answer %d operations in a row with success within 6 s (%d sent, last %s)", healStreak, sent, describe(last))
		}
		last = c.h.send(ctx, call{key: c.key(), tenant: c.tenant(), amount: c.amount(), timeout: 3 * time.Second})
		sent++
		if c.h.succeeded(last) {
			streak++
			continue
		}
		streak = 0
		wait := 50 * time.Millisecond
		if last.err == nil {
			if ra, err := headers.ParseRetryAfter(last.header.Get("Retry-After"), time.Now()); err == nil {
				wait = max(wait, min(ra.Delay, 1500*time.Millisecond))
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
	c.h.settle(ctx)
	return nil
}

// rbMark returns the journal position to read a logical request's calls from.
func (c *casework) rbMark() uint64 { return c.h.Journal.LastSeq() }

// effectCalls returns the effectful dependency calls recorded after mark, in
// the order they were received.
func (c *casework) effectCalls(mark uint64) []faults.Entry {
	h := c.h
	filters := []faults.Filter{faults.BySide("dependency"), faults.ByMethod(or(h.Operation.EffectMethod, http.MethodPost))}
	if h.Operation.EffectPath != "" {
		filters = append(filters, faults.ByPath(h.Operation.EffectPath))
	}
	calls := h.Journal.After(mark, filters...)
	slices.SortStableFunc(calls, func(a, b faults.Entry) int { return a.Received.Compare(b.Received) })
	return calls
}

// frontCalls returns the front exchanges of the operation recorded after mark.
func (c *casework) frontCalls(mark uint64) []faults.Entry {
	op, err := c.h.Operation.render(Values{}, false)
	if err != nil {
		return nil
	}
	calls := c.h.Journal.After(mark, faults.BySide("front"), faults.ByMethod(op.Method), faults.ByPath(op.Path))
	slices.SortStableFunc(calls, func(a, b faults.Entry) int { return a.Received.Compare(b.Received) })
	return calls
}

// logical sends one operation alone and returns its reply and the
// effectful dependency calls it caused: with nothing else in flight, every
// call between the send and quiet belongs to it, keyed or not.
func (c *casework) logical(ctx context.Context, cl call) (reply, []faults.Entry) {
	c.h.settle(ctx)
	mark := c.rbMark()
	r := c.h.send(ctx, cl)
	c.h.settle(ctx)
	return r, c.effectCalls(mark)
}

// byKey groups calls by the key the target forwarded, keeping order; each
// call without a key is a group of its own (it cannot be tied to others).
func (c *casework) byKey(calls []faults.Entry) [][]faults.Entry {
	idx := map[string]int{}
	var groups [][]faults.Entry
	for _, e := range calls {
		k := e.Header(c.h.Conventions.depKeyHeader())
		if k == "" {
			groups = append(groups, []faults.Entry{e})
			continue
		}
		i, ok := idx[k]
		if !ok {
			i = len(groups)
			idx[k] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], e)
	}
	return groups
}

// budgetHeader asks the target to finish within d, in its deadline header.
func (h *Harness) budgetHeader(d time.Duration) http.Header {
	name := or(h.Conventions.DeadlineHeader, headers.RequestTimeoutMs)
	return http.Header{http.CanonicalHeaderKey(name): {strconv.FormatInt(d.Milliseconds(), 10)}}
}

// failureKinds are the outage faults: a 503 without Retry-After, a reset
// connection, and a hang held until the caller gives up.
var failureKinds = []string{"503", "reset", "hang"}

func failureFault(kind string) faults.Fault {
	switch kind {
	case "reset":
		return faults.Reset{}
	case "hang":
		return faults.Blackhole{}
	}
	return faults.Abort{Status: http.StatusServiceUnavailable, Body: "unavailable"}
}

// worstGroup returns the largest group and its size.
func worstGroup(groups [][]faults.Entry) ([]faults.Entry, int) {
	var worst []faults.Entry
	for _, g := range groups {
		if len(g) > len(worst) {
			worst = g
		}
	}
	return worst, len(worst)
}
