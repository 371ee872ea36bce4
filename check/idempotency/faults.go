package idempotency

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

func lostResponseFront(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	base := check.Call{Key: c.Key(), Tenant: c.Tenant(), Amount: c.Amount()}
	match := faults.Match{Headers: map[string]string{h.KeyHeaderOf(h.Operation): h.Conventions.FormatKey(base.Key)}, First: 1}
	if err := c.Fault(h.Front, match, dropResponse()); err != nil {
		return check.Inconclusive("%v", err)
	}
	first := h.Send(ctx, base)
	if h.Succeeded(first) {
		return check.Inconclusive("the front proxy did not lose the first response (%s)", check.Describe(first))
	}
	retry := h.Resolve(ctx, base)
	ef := c.Effects(ctx)
	lost := slices.IndexFunc(c.Entries("front"), func(e faults.Entry) bool { return e.Fault != "" })
	want := "the retry succeeds with the answer the target committed; 1 effect"
	switch {
	case !h.Succeeded(retry):
		return check.Fail(want, fmt.Sprintf("the retry got %s after the lost response", check.Describe(retry)), c.Evidence()...)
	case ef.Total != 1:
		return check.Fail(want, fmt.Sprintf("%d effects for one logical request (%s)", ef.Total, ef), c.Evidence()...)
	case lost >= 0:
		e := c.Entries("front")[lost]
		if len(e.UpstreamStatuses) > 0 && e.UpstreamStatuses[0] != retry.Status {
			return check.Fail(want, fmt.Sprintf("the lost answer was %d, the retry got %d", e.UpstreamStatuses[0], retry.Status), c.Evidence()...)
		}
	}
	return check.Pass(want, fmt.Sprintf("retry answered %d, 1 effect", retry.Status), c.Evidence()...)
}

func lostResponseDependency(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	base := check.Call{Key: c.Key(), Tenant: c.Tenant(), Amount: c.Amount()}
	if err := c.Fault(h.Dependency, c.EffectMatch(1), dropResponse()); err != nil {
		return check.Inconclusive("%v", err)
	}
	r := h.Resolve(ctx, base)
	ef := c.Effects(ctx)
	want := "1 effect at the dependency although its first answer was lost"
	if ef.Total != 1 {
		return check.Fail(want, fmt.Sprintf("%d effects for one logical request (%s)", ef.Total, ef), c.Evidence()...)
	}
	if !h.Succeeded(r) {
		return check.Inconclusive("the operation never completed after the lost answer (last: %s)", check.Describe(r))
	}
	return check.Pass(want, fmt.Sprintf("1 effect, client got %d", r.Status), c.Evidence()...)
}

func concurrentCopies(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	if h.Dependency != nil {
		// Slow the effectful call so every copy arrives while the first is in progress.
		if err := c.Fault(h.Dependency, c.EffectMatch(0), faults.Delay{Duration: 250 * time.Millisecond}); err != nil {
			return check.Inconclusive("%v", err)
		}
	}
	maxN := h.Conventions.CopiesCap()
	rounds := []int{2 + c.IntN(maxN-1)}
	if rounds[0] != maxN {
		rounds = append(rounds, maxN)
	}
	want := fmt.Sprintf("per round: 1 effect; every other copy %d or a byte-equal replay; copies the target's limiter refused (429) are retried, not counted", h.Conventions.InProgressCode())
	var observed []string
	raced, quota := false, 0
	for _, n := range rounds {
		if quota > 0 {
			n = max(2, min(n, quota)) // within the quota the target showed, so the copies race instead of queueing
		}
		// A fresh tenant per round (unless tenants are declared) starts with a full quota.
		base := check.Call{Key: c.Key(), Tenant: c.Tenant(), Amount: c.Amount()}
		before := c.Effects(ctx).Total
		round := sendCopies(ctx, c, base, n)
		got := c.Effects(ctx).Total - before
		quota = max(quota, round.quota)
		if round.refused > 0 && quota == 0 {
			quota = round.raced
		}
		if got == 0 && len(round.admitted) == 0 {
			observed = append(observed, fmt.Sprintf("%d copies: %s, no effect", n, round))
			continue
		}
		if got != 1 {
			return check.Fail(want, fmt.Sprintf("%d concurrent copies caused %d effects (%s)", n, got, round), c.Evidence()...)
		}
		tally, bad := judgeCopies(h, round.admitted)
		if bad != "" {
			return check.Fail(want, fmt.Sprintf("%d copies: %s (%s)", n, bad, round), c.Evidence()...)
		}
		raced = raced || round.raced >= 2
		observed = append(observed, fmt.Sprintf("%d copies: %s; 1 effect, %s", n, round, tally))
	}
	if !raced {
		return check.Inconclusive("the target's limiter starved the race: no round had 2 copies admitted at once (%s)", strings.Join(observed, "; "))
	}
	return check.Pass(want, strings.Join(observed, "; "), c.Evidence()...)
}

// judgeCopies sorts the replies to concurrent copies: successes must all
// carry the same body, everything else must be the in-progress status or
// a 504 that came once the target's maximum budget had run out. bad
// describes the first reply that breaks that.
func judgeCopies(h *check.Harness, replies []check.Reply) (t copyTally, bad string) {
	var winner []byte
	for _, r := range replies {
		switch {
		case h.Succeeded(r) && winner == nil:
			t.wins, winner = t.wins+1, r.Body
		case h.Succeeded(r) && string(r.Body) == string(winner):
			t.wins++
		case h.Succeeded(r):
			return t, fmt.Sprintf("two different successful bodies %s and %s", check.Excerpt(winner), check.Excerpt(r.Body))
		case r.Err == nil && r.Status == h.Conventions.InProgressCode():
			t.conflicts++
		case r.Err == nil && r.Status == http.StatusGatewayTimeout && r.Took >= h.Conventions.BudgetCap()-h.Slack():
			// It waited out the target's whole budget (queued behind
			// the others on a loaded runner) and was told the target
			// gave up: no effect and no wrong answer, and a retry
			// under the key gets the stored one.
			t.gaveUp++
		default:
			return t, "one answered " + check.Describe(r)
		}
	}
	if t.gaveUp > 0 && t.wins == 0 {
		// Then no copy was answered what the key now stands for.
		return t, fmt.Sprintf("no copy succeeded: %d got 504 at the target's maximum budget and %d the in-progress status", t.gaveUp, t.conflicts)
	}
	return t, ""
}

// copyTally counts how a round's admitted copies were answered.
type copyTally struct{ wins, conflicts, gaveUp int }

func (t copyTally) String() string {
	s := fmt.Sprintf("%d successes, %d conflicts", t.wins, t.conflicts)
	if t.gaveUp > 0 {
		s += fmt.Sprintf(", %d 504 at the target's maximum budget", t.gaveUp)
	}
	return s
}

// burst sends n copies of base at once and returns every reply.
func sendBurst(ctx context.Context, h *check.Harness, base check.Call, n int) []check.Reply {
	replies := make([]check.Reply, n)
	check.Together(n, func(i int) { replies[i] = h.Send(ctx, base) })
	return replies
}

// dropResponse loses an answer after the upstream committed it.
func dropResponse() faults.Fault { return faults.DropResponse{} }
