package suites

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/resilcheck/resilcheck/faults"
)

func lostResponseFront(ctx context.Context, c *Case) Result {
	h := c.h
	base := call{key: c.key(), tenant: c.tenant(), amount: c.amount()}
	match := faults.Match{Headers: map[string]string{h.keyHeaderOf(h.Operation): h.Conventions.formatKey(base.key)}, First: 1}
	if err := c.fault(h.Front, match, dropResponse()); err != nil {
		return inconclusive("%v", err)
	}
	first := h.send(ctx, base)
	if h.succeeded(first) {
		return inconclusive("the front proxy did not lose the first response (%s)", describe(first))
	}
	retry := h.resolve(ctx, base)
	ef := c.effects(ctx)
	lost := slices.IndexFunc(c.entries("front"), func(e faults.Entry) bool { return e.Fault != "" })
	want := "the retry succeeds with the answer the target committed; 1 effect"
	switch {
	case !h.succeeded(retry):
		return fail(want, fmt.Sprintf("the retry got %s after the lost response", describe(retry)), c.evidence()...)
	case ef.total != 1:
		return fail(want, fmt.Sprintf("%d effects for one logical request (%s)", ef.total, ef), c.evidence()...)
	case lost >= 0:
		e := c.entries("front")[lost]
		if len(e.UpstreamStatuses) > 0 && e.UpstreamStatuses[0] != retry.status {
			return fail(want, fmt.Sprintf("the lost answer was %d, the retry got %d", e.UpstreamStatuses[0], retry.status), c.evidence()...)
		}
	}
	return pass(want, fmt.Sprintf("retry answered %d, 1 effect", retry.status), c.evidence()...)
}

func lostResponseDependency(ctx context.Context, c *Case) Result {
	h := c.h
	base := call{key: c.key(), tenant: c.tenant(), amount: c.amount()}
	if err := c.fault(h.Dependency, c.effectMatch(1), dropResponse()); err != nil {
		return inconclusive("%v", err)
	}
	r := h.resolve(ctx, base)
	ef := c.effects(ctx)
	want := "1 effect at the dependency although its first answer was lost"
	if ef.total != 1 {
		return fail(want, fmt.Sprintf("%d effects for one logical request (%s)", ef.total, ef), c.evidence()...)
	}
	if !h.succeeded(r) {
		return inconclusive("the operation never completed after the lost answer (last: %s)", describe(r))
	}
	return pass(want, fmt.Sprintf("1 effect, client got %d", r.status), c.evidence()...)
}

func concurrentCopies(ctx context.Context, c *Case) Result {
	h := c.h
	if h.Dependency != nil {
		// Slow the effectful call so every copy arrives while the first is in progress.
		if err := c.fault(h.Dependency, c.effectMatch(0), faults.Delay{Duration: 250 * time.Millisecond}); err != nil {
			return inconclusive("%v", err)
		}
	}
	maxN := h.Conventions.maxCopies()
	rounds := []int{2 + c.intn(maxN-1)}
	if rounds[0] != maxN {
		rounds = append(rounds, maxN)
	}
	want := fmt.Sprintf("per round: 1 effect; every other copy %d or a byte-equal replay; copies the target's limiter refused (429) are retried, not counted", h.Conventions.inProgressStatus())
	var observed []string
	raced, quota := false, 0
	for _, n := range rounds {
		if quota > 0 {
			n = max(2, min(n, quota)) // within the quota the target showed, so the copies race instead of queueing
		}
		// A fresh tenant per round (unless tenants are declared) starts with a full quota.
		base := call{key: c.key(), tenant: c.tenant(), amount: c.amount()}
		before := c.effects(ctx).total
		round := c.copies(ctx, base, n)
		got := c.effects(ctx).total - before
		quota = max(quota, round.quota)
		if round.refused > 0 && quota == 0 {
			quota = round.raced
		}
		if got == 0 && len(round.admitted) == 0 {
			observed = append(observed, fmt.Sprintf("%d copies: %s, no effect", n, round))
			continue
		}
		if got != 1 {
			return fail(want, fmt.Sprintf("%d concurrent copies caused %d effects (%s)", n, got, round), c.evidence()...)
		}
		wins, conflicts, bad := h.judgeCopies(round.admitted)
		if bad != "" {
			return fail(want, fmt.Sprintf("%d copies: %s (%s)", n, bad, round), c.evidence()...)
		}
		raced = raced || round.raced >= 2
		observed = append(observed, fmt.Sprintf("%d copies: %s; 1 effect, %d successes, %d conflicts", n, round, wins, conflicts))
	}
	if !raced {
		return inconclusive("the target's limiter starved the race: no round had 2 copies admitted at once (%s)", strings.Join(observed, "; "))
	}
	return pass(want, strings.Join(observed, "; "), c.evidence()...)
}

// judgeCopies sorts the replies to concurrent copies: successes must all
// carry the same body, everything else must be the in-progress status.
// bad describes the first reply that breaks that.
func (h *Harness) judgeCopies(replies []reply) (wins, conflicts int, bad string) {
	var winner []byte
	for _, r := range replies {
		switch {
		case h.succeeded(r) && winner == nil:
			wins, winner = wins+1, r.body
		case h.succeeded(r) && string(r.body) == string(winner):
			wins++
		case h.succeeded(r):
			return wins, conflicts, fmt.Sprintf("two different successful bodies %s and %s", excerpt(winner), excerpt(r.body))
		case r.err == nil && r.status == h.Conventions.inProgressStatus():
			conflicts++
		default:
			return wins, conflicts, "one answered " + describe(r)
		}
	}
	return wins, conflicts, ""
}

// burst sends n copies of base at once and returns every reply.
func (h *Harness) burst(ctx context.Context, base call, n int) []reply {
	replies := make([]reply, n)
	var start, wg sync.WaitGroup
	start.Add(1)
	for i := range n {
		wg.Go(func() {
			start.Wait()
			replies[i] = h.send(ctx, base)
		})
	}
	start.Done()
	wg.Wait()
	return replies
}

// dropResponse loses an answer after the upstream committed it.
func dropResponse() faults.Fault { return faults.DropResponse{} }

func (ef effects) String() string {
	var parts []string
	if ef.ledger {
		parts = append(parts, fmt.Sprintf("ledger: %d distinct forwarded keys, %d calls without a key", len(ef.byKey), ef.unkeyed))
	}
	if ef.probe >= 0 {
		parts = append(parts, fmt.Sprintf("probe: %d", ef.probe))
	}
	return strings.Join(parts, "; ")
}
