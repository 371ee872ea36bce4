package outbox

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/broker"
	"github.com/resilcheck/resilcheck/check"
)

// ocase is one case of the suite: one trigger operation, whose event is
// told from others' by what it carries (its idempotency key or amount).
type ocase struct {
	*check.Case
	p      check.OutboxPolicy
	cfg    Config
	op     check.Operation
	call   check.Call
	amount *regexp.Regexp
	start  int // events of the broker journal before the case
}

// withCase adapts a check to the kit: it draws the trigger call and
// starts the case's windows once the proxies are quiet.
func withCase(run func(ctx context.Context, o *ocase) check.Result) func(context.Context, *check.Case) check.Result {
	return func(ctx context.Context, c *check.Case) check.Result {
		o := &ocase{Case: c, p: c.Harness.Policy.Outbox, cfg: config(c.Harness), op: c.Harness.Operation}
		if o.p.Trigger != nil {
			o.op = *o.p.Trigger
		}
		c.Restart(ctx)
		o.start = len(o.p.Broker.Events())
		o.call = check.Call{Op: &o.op, Key: c.Key(), Tenant: c.Tenant(), Amount: c.Amount()}
		o.amount = check.AmountPattern(o.call.Amount)
		return check.BlameInnermost(c.Harness, run(ctx, o), "the innermost tier makes the effects and publishes their events")
	}
}

// trigger sends the case's operation; ok reports whether it succeeded.
func (o *ocase) trigger(ctx context.Context) (check.Reply, bool) {
	r := o.Send(ctx, o.call)
	return r, o.op.Succeeded(r)
}

// emitted returns the case's event publishes so far, stored or not: those
// published since the case began that carry its idempotency key, or,
// when none does (the service's events do not name it), its amount.
// Another case's late event may share the amount, never the key.
func (o *ocase) emitted() []broker.Event {
	var win []broker.Event
	keyed := false
	for _, e := range o.p.Broker.Events()[o.start:] {
		if e.Kind == broker.Emitted {
			win = append(win, e)
			keyed = keyed || bytes.Contains(e.Body, []byte(o.call.Key))
		}
	}
	return slices.DeleteFunc(win, func(e broker.Event) bool {
		if keyed {
			return !bytes.Contains(e.Body, []byte(o.call.Key))
		}
		return !o.amount.Match(e.Body)
	})
}

// stored returns the case's events the broker stored: those under the ids
// of its publishes, and those stored without an id whose body is that of
// one of its publishes without an id. The stream stores a publish without
// a Nats-Msg-Id like any other; leaving it out would count the event as
// never stored, wait the settle time out for it, and blame a missing
// event (or, in OB-03, a missing publish) instead of the missing id.
func (o *ocase) stored(ctx context.Context) ([]broker.Event, error) {
	em := o.emitted()
	mine := ids(em)
	all, err := o.p.Broker.Stored(ctx)
	return slices.DeleteFunc(all, func(e broker.Event) bool {
		if e.MsgID == "" {
			return !slices.ContainsFunc(em, func(p broker.Event) bool { return p.MsgID == "" && bytes.Equal(p.Body, e.Body) })
		}
		return !slices.Contains(mine, e.MsgID)
	}), err
}

// awaitStored waits until the broker stored at least n of the case's
// events (n = 0: waits it out), and returns them; see wait for how long.
func (o *ocase) awaitStored(ctx context.Context, n int) ([]broker.Event, error) {
	var st []broker.Event
	var err error
	o.wait(ctx, func() bool {
		st, err = o.stored(ctx)
		return err != nil || n > 0 && len(ids(st)) >= n
	})
	return st, err
}

// wait polls done until it holds or the settle time passed with no event
// published at all: a relay still working through earlier effects' events
// (a backlog an outage left, oldest first) has not lost the case's, so the
// wait goes on while it publishes, up to maxWaits settle times in all.
func (o *ocase) wait(ctx context.Context, done func() bool) {
	start := time.Now()
	end, seen := start.Add(o.cfg.settle()), o.published()
	for !done() && time.Now().Before(end) {
		select {
		case <-ctx.Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
		if n := o.published(); n > seen {
			seen = n
			if end = time.Now().Add(o.cfg.settle()); end.After(start.Add(maxWaits * o.cfg.settle())) {
				end = start.Add(maxWaits * o.cfg.settle())
			}
		}
	}
}

// maxWaits bounds a wait kept going by a relay's progress, in settle
// times: within a check's 90 s.
const maxWaits = 6

// published counts every event publish the journal holds.
func (o *ocase) published() int {
	n := 0
	for _, e := range o.p.Broker.Events() {
		if e.Kind == broker.Emitted {
			n++
		}
	}
	return n
}

// ids returns the distinct Nats-Msg-Ids of evs in order; an event without
// one counts as an id of its own.
func ids(evs []broker.Event) []string {
	var out []string
	for i, e := range evs {
		id := e.MsgID
		if id == "" {
			id = fmt.Sprintf("(no id #%d)", i+1)
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// tell says what evs hold, for an observation.
func tell(what string, evs []broker.Event) string {
	if len(evs) == 0 {
		return "no event " + what
	}
	return fmt.Sprintf("%d %s under %s", len(evs), what, strings.Join(ids(evs), ", "))
}

// effects counts the case's effects, or says why they cannot be trusted.
func (o *ocase) effects(ctx context.Context) (check.Effects, string) {
	ef := o.Effects(ctx)
	return ef, o.Disagreed()
}
