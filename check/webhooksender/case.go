package webhooksender

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// scase is one case of the suite: the check's case, the sender's policy,
// and the bodies the endpoint had received before the case's trigger.
type scase struct {
	*check.Case
	p    check.WebhookSenderPolicy
	cfg  Config
	seen map[string]bool
	from time.Time // when the trigger was sent
}

// withSender adapts a check of one triggered event to the kit: run gets a
// case whose endpoint answers the event's first deliveries as it scripts.
func withSender(run func(ctx context.Context, s *scase) check.Result) func(context.Context, *check.Case) check.Result {
	return func(ctx context.Context, c *check.Case) check.Result {
		return run(ctx, &scase{Case: c, p: c.Policy.WebhookSender, cfg: config(c.Harness)})
	}
}

// trigger has the endpoint answer the first n deliveries of the next event
// with fault (n <= 0: every one), then sends the trigger operation so the
// target emits that event. It returns why the event could not be emitted,
// or "". The rule is lifted when the case ends: the event's next attempt
// is accepted then, so a sender that would retry it for ever stops.
func (s *scase) trigger(ctx context.Context, n int, fault faults.Fault) string {
	return s.triggerAll(ctx, 1, n, fault)
}

// triggerAll is trigger for events events emitted at once, by as many
// trigger operations sent together.
func (s *scase) triggerAll(ctx context.Context, events, n int, fault faults.Fault) string {
	return s.triggerPaced(ctx, events, 0, n, fault)
}

// triggerPaced is triggerAll with the trigger operations sent one after
// another, gap apart; a gap of 0 sends them together.
func (s *scase) triggerPaced(ctx context.Context, events int, gap time.Duration, n int, fault faults.Fault) string {
	s.seen = map[string]bool{}
	for _, e := range s.Journal.Snapshot(faults.BySide(check.WebhookSenderSide)) {
		s.seen[e.BodySHA256] = true
	}
	if fault != nil {
		if err := s.Fault(s.p.Endpoint, faults.Match{}, &script{seen: s.seen, events: events, n: n, fault: fault}); err != nil {
			return err.Error()
		}
	}
	op := s.Operation
	if s.p.Trigger != nil {
		op = *s.p.Trigger
	}
	calls := make([]check.Call, events)
	for i := range calls { // drawn in order, so the seed replays them
		calls[i] = check.Call{Op: &op, Key: s.Key(), Tenant: s.Tenant(), Amount: s.Amount()}
	}
	s.from = time.Now()
	replies := make([]check.Reply, events)
	if gap <= 0 {
		check.Together(events, func(i int) { replies[i] = s.Send(ctx, calls[i]) })
	} else {
		for i := range calls {
			if i > 0 {
				check.Sleep(ctx, gap)
			}
			replies[i] = s.Send(ctx, calls[i])
		}
	}
	for _, r := range replies {
		if !succeeded(r, op.Success) {
			return fmt.Sprintf("the trigger %s got %s: no event to deliver", opName(op), check.Describe(r))
		}
	}
	return ""
}

// attempts returns the event's attempts so far.
func (s *scase) attempts() []attempt {
	return attemptsOf(s.Entries(check.WebhookSenderSide), s.seen)
}

// awaitEvents is await for the case's events: it polls until done holds
// for them or within has passed since the last attempt (since since
// before any), and returns them.
func (s *scase) awaitEvents(ctx context.Context, since time.Time, within time.Duration, done func([][]attempt) bool) [][]attempt {
	for {
		evs := eventsOf(s.Entries(check.WebhookSenderSide), s.seen)
		if done(evs) || time.Since(lastAttempt(evs, since)) > within || ctx.Err() != nil {
			return evs
		}
		check.Sleep(ctx, 10*time.Millisecond)
	}
}

// await polls the endpoint's journal until done holds for the event's
// attempts or within has passed since the last attempt (since the trigger
// before the first), and returns them.
func (s *scase) await(ctx context.Context, within time.Duration, done func([]attempt) bool) []attempt {
	for {
		as := s.attempts()
		if done(as) {
			return as
		}
		last := s.from
		if len(as) > 0 {
			last = as[len(as)-1].at
		}
		if time.Since(last) > within || ctx.Err() != nil {
			return as
		}
		check.Sleep(ctx, 10*time.Millisecond)
	}
}

// count is an await condition: at least n attempts.
func count(n int) func([]attempt) bool {
	return func(as []attempt) bool { return len(as) >= n }
}

// succeeded reports whether r is a success of an operation declaring ok
// (empty: any 2xx).
func succeeded(r check.Reply, ok []int) bool {
	if r.Err != nil {
		return false
	}
	if len(ok) == 0 {
		return r.Status >= 200 && r.Status < 300
	}
	return slices.Contains(ok, r.Status)
}

// opName names op in a reason: its name, or its method and path.
func opName(op check.Operation) string {
	if op.Name != "" {
		return op.Name
	}
	return op.Method + " " + op.Path
}

// internalError is the failure most WS checks answer a delivery with.
var internalError = faults.Abort{Status: http.StatusInternalServerError}
