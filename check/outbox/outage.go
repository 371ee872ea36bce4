package outbox

import (
	"context"
	"time"

	"github.com/resilcheck/resilcheck/check"
)

// outage (OB-02): with the broker down, the trigger is sent and the
// service crashed, then the broker comes back. An effect the service made
// must still get its event: an event it held only in memory (a publish
// after the commit, a client's reconnect buffer) died with it.
func outage(ctx context.Context, o *ocase) check.Result {
	o.p.Broker.Down()
	up := false
	bringUp := func() error {
		if up {
			return nil
		}
		up = true
		return o.p.Broker.Up(context.WithoutCancel(ctx))
	}
	defer func() { _ = bringUp() }() // never leave the broker down for what follows
	r, _ := o.trigger(ctx)
	if err := o.p.Crash(ctx); err != nil {
		return check.Inconclusive("the service did not come back after the crash, with the broker down: %v", err)
	}
	select {
	case <-ctx.Done():
		return check.Inconclusive("%v", ctx.Err())
	case <-time.After(o.cfg.outage()):
	}
	if err := bringUp(); err != nil {
		return check.Inconclusive("the broker did not come back: %v", err)
	}
	ef, bad := o.effects(ctx)
	if bad != "" {
		return check.Inconclusive("%s", bad)
	}
	st, err := o.awaitStored(ctx, max(ef.Total, 1))
	if err != nil {
		return check.Inconclusive("%v", err)
	}
	return agree(ctx, o, "as many events stored, each under one id, as effects made", "the trigger got "+check.Describe(r)+" with the broker down, then the service was crashed and the broker came back", st)
}
