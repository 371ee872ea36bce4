package outbox

import (
	"context"
	"fmt"

	"github.com/resilcheck/resilcheck/broker"
	"github.com/resilcheck/resilcheck/check"
)

// unconfirmed (OB-03): the broker takes no event publish while the
// trigger's event is first published; then it takes them again. The
// event must be published again, under the id it first had, until stored.
func unconfirmed(ctx context.Context, o *ocase) check.Result {
	if err := o.p.Broker.Withhold(ctx); err != nil {
		return check.Inconclusive("%v", err)
	}
	withheld := true
	restore := func() error {
		if !withheld {
			return nil
		}
		withheld = false
		return o.p.Broker.Restore(context.WithoutCancel(ctx))
	}
	defer func() { _ = restore() }()
	r, ok := o.trigger(ctx)
	if !ok {
		return check.Inconclusive("the trigger %s got %s with the broker refusing events: no effect to publish", o.op.Name, check.Describe(r))
	}
	var first []broker.Event
	o.wait(ctx, func() bool {
		first = o.emitted()
		return len(first) > 0
	})
	if len(first) == 0 {
		return check.Inconclusive("the service published no event for the trigger in %s: nothing went unconfirmed (OB-01 judges that)", check.Ms(o.cfg.settle()))
	}
	if err := restore(); err != nil {
		return check.Inconclusive("%v", err)
	}
	st, err := o.awaitStored(ctx, 1)
	if err != nil {
		return check.Inconclusive("%v", err)
	}
	want := "the unconfirmed event published again under its first id, and stored"
	seen := fmt.Sprintf("the trigger got %s; its first publish, under %s, went unconfirmed", check.Describe(r), ids(first)[0])
	if len(st) == 0 {
		return check.Fail(want, fmt.Sprintf("%s; %s; nothing stored in %s once the broker took events again: the event was not published again", seen, tell("published", o.emitted()), check.Ms(o.cfg.settle())), o.Evidence()...).Untimed()
	}
	return agree(ctx, o, want, seen, st)
}
