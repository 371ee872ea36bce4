package amplification

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// hopFailures are what a hop does to a POST after reading its body and
// before any answer: failures of the connection between two tiers, which
// no status code shows, and after which proxies configured to "try the
// next upstream on error" re-send the POST.
var hopFailures = []struct {
	what  string
	fault faults.Fault
}{
	{"the connection reset after the body was read, before any answer", faults.Reset{}},
	{"the connection closed after the body was read, with no answer", faults.Blackhole{Timeout: time.Millisecond}},
	{"the tier behind took the POST, and the connection reset before its answer", faults.DropResponse{Mode: "reset"}},
}

// hopsNoResend is HS-14 on a multi-tier target: each hop in turn fails
// every POST it carries as hopFailures says, and then the dependency
// answers 503 to every call so the last tier fails the request itself.
// Every hop must carry each POST once: a hop that carries more than the
// tier above it received names the tier that re-sent it.
func hopsNoResend(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	want := "each POST crosses every hop once, whatever the connection between two tiers or the dependency does: no tier re-sends it (RFC 9110 §9.2.2)"
	if err := c.Heal(ctx, h.Policy.Retry.HealStreak(), h.HealWithin()); err != nil {
		return check.Inconclusive("before the check: %v", err)
	}
	op, err := h.Operation.Prepare(check.Values{}, false)
	if err != nil {
		return check.Inconclusive("%v", err)
	}
	var seen []string
	reached := 0
	for _, hp := range h.Hops {
		for _, hf := range hopFailures {
			_, remove, err := c.Rule(hp.Proxy, faults.Match{Method: op.Method}, hf.fault)
			if err != nil {
				return check.Inconclusive("%v", err)
			}
			what := fmt.Sprintf("on the hop %s, %s", hp.Name(), hf.what)
			r, carried := hopRequest(ctx, c, op.Method)
			remove()
			counts := lens(carried)
			if b, ok := h.Resent(carried, lenOf); ok {
				return blamed(check.Fail(want, fmt.Sprintf("%s: %s, client got %s; %s", what, countText(h, counts), check.Describe(r), b), c.Evidence()...), b)
			}
			if counts[len(counts)-1] > 0 {
				reached++
			}
			seen = append(seen, fmt.Sprintf("%s: %s, client got %s", what, countText(h, counts), check.Describe(r)))
		}
	}
	if h.Dependency != nil {
		_, remove, err := c.Rule(h.Dependency, c.EffectMatch(0), failureFault("503"))
		if err != nil {
			return check.Inconclusive("%v", err)
		}
		r, carried := hopRequest(ctx, c, op.Method)
		remove()
		counts := lens(carried)
		what := "with every dependency call answered 503"
		if b, ok := h.Resent(carried, lenOf); ok {
			return blamed(check.Fail(want, fmt.Sprintf("%s: %s, client got %s; %s", what, countText(h, counts), check.Describe(r), b), c.Evidence()...), b)
		}
		seen = append(seen, fmt.Sprintf("%s: %s, client got %s", what, countText(h, counts), check.Describe(r)))
	}
	if reached == 0 {
		return check.Inconclusive("no POST reached the last hop: %s", strings.Join(seen, "; "))
	}
	return check.Pass(want, strings.Join(seen, "; "), c.Evidence()...)
}

// hopRequest sends one operation alone and returns its reply and, hop by
// hop, the exchanges that carried it.
func hopRequest(ctx context.Context, c *check.Case, method string) (check.Reply, [][]faults.Entry) {
	h := c.Harness
	h.Settle(ctx)
	mark := h.Journal.LastSeq()
	key := c.Key()
	r := h.Send(ctx, check.Call{Key: key, Tenant: c.Tenant(), Amount: c.Amount()})
	h.Settle(ctx)
	return r, h.HopEntries(mark, method, h.Conventions.FormatKey(key))
}

// lenOf counts a hop's exchanges one by one: a proxy that sends a POST
// twice, even side by side, re-sent it.
func lenOf(es []faults.Entry) int { return len(es) }

// lens counts each hop's exchanges.
func lens(carried [][]faults.Entry) []int {
	out := make([]int, len(carried))
	for i, es := range carried {
		out[i] = len(es)
	}
	return out
}

// countText renders what each hop carried: "gateway → service: 1 request".
func countText(h *check.Harness, counts []int) string {
	parts := make([]string, len(counts))
	for i, hp := range h.Hops {
		noun := "requests"
		if counts[i] == 1 {
			noun = "request"
		}
		parts[i] = fmt.Sprintf("%s: %d %s", hp.Name(), counts[i], noun)
	}
	return strings.Join(parts, ", ")
}

// blamed is res laid at b's tier, which its observation names.
func blamed(res check.Result, b check.Blame) check.Result {
	res.Tier = b.Tier
	return res
}
