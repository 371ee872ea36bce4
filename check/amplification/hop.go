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
	// The scenarios: each hop's failures in turn, then the dependency's 503s
	// (reached counts only the former: a hop the request got to).
	type scenario struct {
		what  string
		proxy *faults.Proxy
		match faults.Match
		fault faults.Fault
		onHop bool
	}
	var scenarios []scenario
	for _, hp := range h.Hops {
		for _, hf := range hopFailures {
			scenarios = append(scenarios, scenario{fmt.Sprintf("on the hop %s, %s", hp.Name(), hf.what), hp.Proxy, faults.Match{Method: op.Method}, hf.fault, true})
		}
	}
	if h.Dependency != nil {
		scenarios = append(scenarios, scenario{"with every dependency call answered " + kindText(h, "503"), h.Dependency, c.EffectMatch(0), failureFault(h, "503"), false})
	}
	var seen []string
	reached := 0
	for _, sc := range scenarios {
		_, remove, err := c.Rule(sc.proxy, sc.match, sc.fault)
		if err != nil {
			return check.Inconclusive("%v", err)
		}
		r, carried := hopRequest(ctx, c, op.Method)
		remove()
		obs := fmt.Sprintf("%s: %s, client got %s", sc.what, countText(h, carried), check.Describe(r))
		if b, ok := h.Resent(carried, lenOf); ok {
			res := check.Fail(want, obs+"; "+b.String(), c.Evidence()...)
			res.Tier = b.Tier
			return res
		}
		if sc.onHop && len(carried[len(carried)-1]) > 0 {
			reached++
		}
		seen = append(seen, obs)
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

// countText renders what each hop carried: "gateway → service: 1 request".
func countText(h *check.Harness, carried [][]faults.Entry) string {
	parts := make([]string, len(carried))
	for i, hp := range h.Hops {
		noun := "requests"
		if len(carried[i]) == 1 {
			noun = "request"
		}
		parts[i] = fmt.Sprintf("%s: %d %s", hp.Name(), len(carried[i]), noun)
	}
	return strings.Join(parts, ", ")
}
