package amplification

import (
	"context"
	"net/http"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// rbMark returns the journal position to read a logical request's calls from.
func rbMark(c *check.Case) uint64 { return c.Harness.Journal.LastSeq() }

// effectCalls returns the effectful dependency calls recorded after mark, in
// the order they were received.
func effectCalls(c *check.Case, mark uint64) []faults.Entry { return c.Harness.EffectCalls(mark) }

// frontCalls returns the front exchanges of the operation recorded after mark.
func frontCalls(c *check.Case, mark uint64) []faults.Entry { return c.Harness.FrontCalls(mark) }

// logical sends one operation alone and returns its reply and the
// effectful dependency calls it caused: with nothing else in flight, every
// call between the send and quiet belongs to it, keyed or not.
func logicalRequests(ctx context.Context, c *check.Case, cl check.Call) (check.Reply, []faults.Entry) {
	c.Harness.Settle(ctx)
	mark := rbMark(c)
	r := c.Harness.Send(ctx, cl)
	c.Harness.Settle(ctx)
	return r, effectCalls(c, mark)
}

// groupByKey groups calls by the key the target forwarded, keeping order;
// each call without a key is a group of its own (it cannot be tied to
// others). A group holds one call per attempt, its first copy: hedged
// copies in its attempt (Harness.Attempts) are no retries, and the hedging
// suite judges them.
func groupByKey(c *check.Case, calls []faults.Entry) [][]faults.Entry {
	idx := map[string]int{}
	var groups [][]faults.Entry
	for _, e := range calls {
		k := e.Header(c.Harness.Conventions.DependencyKeyName())
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
	for i, g := range groups {
		attempts := c.Harness.Attempts(g)
		if len(attempts) == len(g) {
			continue
		}
		firsts := make([]faults.Entry, len(attempts))
		for j, a := range attempts {
			firsts[j] = a[0]
		}
		groups[i] = firsts
	}
	return groups
}

// failureKinds are the outage faults: a 503 without Retry-After (or a gRPC
// dependency's UNAVAILABLE without pushback), a reset connection, and a
// hang held until the caller gives up.
var failureKinds = []string{"503", "reset", "hang"}

// kindText names an outage kind as the dependency shows it: "503", or a
// gRPC dependency's "UNAVAILABLE (14)".
func kindText(h *check.Harness, kind string) string {
	if kind == "503" {
		return h.RefusalText(http.StatusServiceUnavailable, 0)
	}
	return kind
}

// failureKindsText lists failureKinds as the dependency shows them.
func failureKindsText(h *check.Harness) string {
	wait := "Retry-After"
	if h.DependencyGRPC {
		wait = "grpc-retry-pushback-ms"
	}
	return kindText(h, "503") + " without " + wait + ", reset, hang"
}

// failureFault is the outage fault of kind, a 503 in the dependency's
// protocol (UNAVAILABLE from a gRPC one).
func failureFault(h *check.Harness, kind string) faults.Fault {
	switch kind {
	case "reset":
		return faults.Reset{}
	case "hang":
		return faults.Blackhole{}
	}
	return h.Refusal(http.StatusServiceUnavailable, 0)
}
