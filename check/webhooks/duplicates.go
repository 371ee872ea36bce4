package webhooks

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// redelivered (WH-01): an event answered 2xx is delivered twice more with
// the same id, each time with a fresh timestamp and signature as a
// provider's retry carries; every delivery is answered 2xx and the event
// makes one effect.
func redelivered(ctx context.Context, w *wcase, ev event) check.Result {
	first := w.deliver(ctx, delivery{event: ev})
	if !is2xx(first) {
		return check.Inconclusive("the first delivery was not accepted (%s): nothing to deliver again", check.Describe(first))
	}
	want := "2 more deliveries of the event answered 2xx; 1 effect"
	for i := range 2 {
		if r := w.deliver(ctx, delivery{event: ev}); !is2xx(r) {
			return check.Fail(want, fmt.Sprintf("delivery %d got %s: the provider would retry it", i+2, check.Describe(r)), w.Evidence()...).Untimed()
		}
	}
	return oneEffect(ctx, w, want, "3 deliveries answered 2xx")
}

// concurrent (WH-02): copies of one event delivered at once make one
// effect, and at least one copy is answered 2xx.
func concurrent(ctx context.Context, w *wcase, ev event) check.Result {
	n := w.cfg.copies()
	replies := make([]check.Reply, n)
	check.Together(n, func(i int) { replies[i] = w.deliver(ctx, delivery{event: ev}) })
	counts := map[string]int{}
	for _, r := range replies {
		counts[check.Describe(r)]++
	}
	var parts []string
	for _, s := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%d× %s", counts[s], s))
	}
	got := fmt.Sprintf("%d copies: %s", n, strings.Join(parts, ", "))
	if !slices.ContainsFunc(replies, is2xx) {
		return check.Inconclusive("no copy of the event was accepted (%s): nothing shows how the receiver handles copies", got)
	}
	return oneEffect(ctx, w, fmt.Sprintf("%d copies delivered at once: 1 effect", n), got)
}

// lostAnswer (WH-03): the front proxy loses the receiver's answer to the
// first delivery after the receiver committed it; the provider delivers
// again, and the event makes one effect.
func lostAnswer(ctx context.Context, w *wcase, ev event) check.Result {
	match := faults.Match{Headers: map[string]string{HeaderID: ev.id}, First: 1}
	if err := w.Fault(w.Front, match, faults.DropResponse{}); err != nil {
		return check.Inconclusive("%v", err)
	}
	first := w.deliver(ctx, delivery{event: ev})
	if first.Err == nil {
		return check.Inconclusive("the front proxy did not lose the first answer (%s)", check.Describe(first))
	}
	if lost := lostStatus(w.Entries("front")); lost/100 != 2 {
		return check.Inconclusive("the answer the front proxy lost was %d, not a 2xx: the receiver had not accepted the event, so nothing tells a redelivery of a committed one", lost)
	}
	again := w.deliver(ctx, delivery{event: ev})
	want := "the delivery after the lost answer is answered 2xx; 1 effect"
	if !is2xx(again) {
		return check.Fail(want, fmt.Sprintf("the delivery after the lost answer got %s", check.Describe(again)), w.Evidence()...).Untimed()
	}
	return oneEffect(ctx, w, want, "the answer to the first delivery lost, the second answered "+check.Describe(again))
}

// lostStatus is the receiver's status in the first answer the front proxy
// lost among es, or 0.
func lostStatus(es []faults.Entry) int {
	i := slices.IndexFunc(es, func(e faults.Entry) bool { return e.Fault != "" && len(e.UpstreamStatuses) > 0 })
	if i < 0 {
		return 0
	}
	return es[i].UpstreamStatuses[0]
}

// oneEffect judges that the case made exactly one effect.
func oneEffect(ctx context.Context, w *wcase, want, seen string) check.Result {
	ef, bad := w.landed(ctx)
	if bad != "" {
		return check.Inconclusive("%s", bad)
	}
	obs := fmt.Sprintf("%s; %d effects (%s)", seen, ef.Total, ef)
	if ef.Total != 1 {
		return blameReceiver(w, check.Fail(want, obs, w.Evidence()...).Untimed())
	}
	return check.Pass(want, obs, w.Evidence()...)
}
