package outbox

import (
	"context"
	"fmt"
	"slices"

	"github.com/resilcheck/resilcheck/broker"
	"github.com/resilcheck/resilcheck/check"
)

// once (OB-01): the trigger succeeds with one effect, and one event for
// it, under one id, is stored.
func once(ctx context.Context, o *ocase) check.Result {
	r, ok := o.trigger(ctx)
	if !ok {
		return check.Inconclusive("the trigger %s got %s: no effect to publish", o.op.Name, check.Describe(r))
	}
	st, err := o.awaitStored(ctx, 1)
	if err != nil {
		return check.Inconclusive("%v", err)
	}
	return agree(ctx, o, "1 effect; its event stored under one id", check.Describe(r), st)
}

// agree judges that the case's stored events match its effects one for
// one, each effect's event published under one id (any copies under it).
func agree(ctx context.Context, o *ocase, want, seen string, st []broker.Event) check.Result {
	ef, bad := o.effects(ctx)
	if bad != "" {
		return check.Inconclusive("%s", bad)
	}
	em := o.emitted()
	obs := fmt.Sprintf("%s; %d effects (%s); %s; %s", seen, ef.Total, ef, tell("published", em), tell("stored", st))
	switch n := len(ids(st)); {
	case slices.ContainsFunc(em, func(e broker.Event) bool { return e.MsgID == "" }):
		return check.Fail(want, obs+": an event was published without a Nats-Msg-Id, so no consumer can tell a copy of it from a new event", o.Evidence()...).Untimed()
	case n < ef.Total:
		return check.Fail(want, obs+fmt.Sprintf(": %d effects without their event (waited until no event at all was published for %s)", ef.Total-n, check.Ms(o.cfg.settle())), o.Evidence()...).Untimed()
	case n > ef.Total:
		return check.Fail(want, obs+fmt.Sprintf(": %d events more than effects", n-ef.Total), o.Evidence()...).Untimed()
	case len(ids(em)) > n:
		return check.Fail(want, obs+": the event was published under more ids than were stored", o.Evidence()...).Untimed()
	}
	return check.Pass(want, obs, o.Evidence()...)
}
