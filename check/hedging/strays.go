package hedging

import (
	"context"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// own returns the effectful dependency calls recorded after mark, once the
// proxies are quiet, less the late copies of earlier requests: calls with
// a key forwarded by mark, like a heal's copy sent together with its first
// under hedge-no-delay but scheduled after that request was answered, when
// the proxies already looked quiet. strayHeld reports whether such a copy
// was the one rule held. When every call is one, the target reuses its
// keys across requests, and all are kept.
func (c *hdCase) own(ctx context.Context, mark uint64, rule string) (calls []faults.Entry, strayHeld bool) {
	c.Harness.Settle(ctx)
	all := c.Harness.EffectCalls(mark)
	seen := c.Harness.KeysBefore(mark)
	for _, e := range all {
		if k := c.key(e); k != "" && seen[k] {
			strayHeld = strayHeld || (rule != "" && e.Rule == rule)
			continue
		}
		calls = append(calls, e)
	}
	if len(calls) == 0 {
		return all, false
	}
	return calls, strayHeld
}

// heldTries bounds how often heldSend places its hold again after a late
// copy of an earlier request took it.
const heldTries = 3

// heldSend holds the first effectful call after it for hold, sends one
// operation, and returns the client's reply and the request's own calls.
// Quiet first, yet a late copy of an earlier request can still take the
// hold meant for this request's first call (CI saw one 2.7 ms after its
// request was answered); that spoils the case, so it tries again, the
// case's window (its effects, its evidence) restarted.
func (c *hdCase) heldSend(ctx context.Context, hold time.Duration) (check.Reply, []faults.Entry, error) {
	for try := 1; ; try++ {
		if try > 1 {
			c.Restart(ctx)
		}
		mark := c.mark(ctx)
		rule, _, err := c.Rule(c.Harness.Dependency, c.EffectMatch(1), faults.Delay{Duration: hold})
		if err != nil {
			return check.Reply{}, nil, err
		}
		r, _ := c.send(ctx, hold)
		calls, strayHeld := c.own(ctx, mark, rule)
		if !strayHeld || try == heldTries || ctx.Err() != nil {
			return r, calls, nil
		}
	}
}
