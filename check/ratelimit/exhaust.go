package ratelimit

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/resilcheck/resilcheck/check"
)

// exhaustWorkers is how many probes exhaust keeps in flight: enough to
// outrun a refill, few enough not to trip load shedding.
const exhaustWorkers = 8

// exhaustion is how exhaust ended.
type exhaustion struct {
	First   check.Observation // the first 429, when Refused
	Sent    int               // requests sent, the probe included
	Refused bool
	// Budget is how many requests exhaust would send; OutOfTime says it
	// ran out of time before sending them, and Errs counts the requests
	// that met a transport error.
	Budget    int
	OutOfTime bool
	Errs      int
}

// notRefused is the inconclusive verdict on an exhaustion that drew no
// 429, saw said first, with why it stopped short: the time ran out (the
// runner's slowness or the target's, which the harness weighs by its
// stall watch) or requests met transport errors.
func (e exhaustion) notRefused(saw string) check.Result {
	var why []string
	if e.OutOfTime {
		why = append(why, fmt.Sprintf("%d requests, %d in flight, took the %s allowed for %d", e.Sent, exhaustWorkers, exhaustFor, e.Budget))
	}
	if e.Errs > 0 {
		why = append(why, fmt.Sprintf("%d met a transport error", e.Errs))
	}
	if len(why) > 0 {
		saw += ": " + strings.Join(why, "; ")
	}
	return check.Inconclusive("%s", saw)
}

// exhaust drives tenant into refusal and returns the first 429 and how
// many requests it took. It gives up (Refused false) after 4 r + 16
// requests, or 2 q + 16 when the advertised policy's quota is larger, as
// when r understates what is left (1000 at most, 400 when nothing is
// advertised), or after exhaustFor.
func exhaust(parent context.Context, c *check.Case, tenant string) exhaustion {
	o, err := rlProbe(parent, c, tenant)
	if err == nil && o.Status == http.StatusTooManyRequests {
		return exhaustion{First: o, Sent: 1, Refused: true, Budget: 1}
	}
	budget := int64(400)
	if l, has := o.MinRemaining(); has {
		n := 4 * l.Remaining
		if p, ok := policyOf(o.Fields, l); ok {
			n = max(n, 2*p.Quota)
		}
		budget = min(n+16, 1000)
	}
	ctx, cancel := context.WithTimeout(parent, exhaustFor)
	defer cancel()
	var (
		errs atomic.Int64
		n    atomic.Int64
		mu   sync.Mutex
		got  *check.Observation
		wg   sync.WaitGroup
		done atomic.Bool
	)
	for range exhaustWorkers {
		wg.Go(func() {
			for !done.Load() && ctx.Err() == nil && n.Add(1) <= budget {
				o, err := rlProbe(ctx, c, tenant)
				if err != nil && ctx.Err() == nil {
					errs.Add(1)
				}
				if err != nil || o.Status != http.StatusTooManyRequests {
					continue
				}
				mu.Lock()
				if got == nil {
					got = &o
				}
				mu.Unlock()
				done.Store(true)
			}
		})
	}
	wg.Wait()
	e := exhaustion{Sent: int(min(n.Load(), budget)) + 1, Budget: int(budget) + 1, Errs: int(errs.Load())}
	if got != nil {
		e.First, e.Refused = *got, true
		return e
	}
	e.OutOfTime = ctx.Err() != nil && parent.Err() == nil
	return e
}

// exhaustFor bounds how long exhaust drives one tenant.
const exhaustFor = 5 * time.Second
