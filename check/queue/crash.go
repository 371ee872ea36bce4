package queue

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// crashPoint is the dependency fault the crash checks place on the
// consumer's first effect call for the case's message: with Commit the
// dependency takes the call first (the effect is done), without it the
// call never reaches it; either way the proxy then tells the check, which
// kills the consumer, and holds the call until the consumer's connection
// is gone. Any other call for the message until the crash (a hedged
// copy, a retry) is held too, without reaching the dependency: it dies
// with the consumer. A call is the message's when it carries the
// message's id (in a header or the body) or its amount (in the body): an
// earlier case's late call passes, and so does every call once the check
// released the crash point after the crash.
type crashPoint struct {
	Commit bool          `attr:"commit"`
	Hold   time.Duration `attr:"hold"`
	ID     string        `attr:"id"`
	Amount int           `attr:"amount"`

	mu       sync.Mutex
	fired    bool           // the first call for the message came
	released bool           // the crash is over: every call passes
	hit      chan struct{}  // closed when the call is where the crash belongs; nil from a rules file
	amount   *regexp.Regexp // Amount as a number of its own
}

func init() { faults.Register("queue-crash-point", func() faults.Fault { return new(crashPoint) }) }

func newCrashPoint(commit bool, hold time.Duration, m message) *crashPoint {
	return &crashPoint{Commit: commit, Hold: hold, ID: m.id, Amount: m.amount, hit: make(chan struct{}),
		amount: check.AmountPattern(m.amount)}
}

// defaultHold bounds the hold of a crash point built from its attributes
// (a rules file), which has no check to kill the consumer for it.
const defaultHold = 30 * time.Second

// Inject passes a call that is not the message's, or comes once the
// crash point was released; on the message's first it forwards when
// Commit, signals the crash and holds; a later one before the release it
// holds without forwarding.
func (f *crashPoint) Inject(ex *faults.Exchange) error {
	f.mu.Lock()
	mine := !f.released && f.carries(ex)
	first := mine && !f.fired
	f.fired = f.fired || mine
	f.mu.Unlock()
	switch {
	case !mine:
		return ex.Pass()
	case !first:
		return f.hold(ex)
	}
	if f.Commit {
		resp, err := ex.Forward()
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if f.hit != nil {
		close(f.hit)
	}
	return f.hold(ex)
}

// hold keeps ex until its client is gone (the consumer was killed), or
// Hold passes, and then loses the answer.
func (f *crashPoint) hold(ex *faults.Exchange) error {
	hold := f.Hold
	if hold <= 0 {
		hold = defaultHold
	}
	if err := ex.Hold(hold); err != nil {
		return err
	}
	return ex.Lose(faults.LoseReset)
}

// release lets every later call pass: the crash is over.
func (f *crashPoint) release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.released = true
}

// carries reports whether ex is a call for the crash point's message.
func (f *crashPoint) carries(ex *faults.Exchange) bool {
	body := ex.Body()
	if f.ID != "" && bytes.Contains(body, []byte(f.ID)) {
		return true
	}
	for _, vs := range ex.Request().Header {
		if slices.ContainsFunc(vs, func(v string) bool { return f.ID != "" && strings.Contains(v, f.ID) }) {
			return true
		}
	}
	if f.Amount == 0 {
		return false
	}
	if f.amount == nil {
		f.amount = check.AmountPattern(f.Amount)
	}
	return f.amount.Match(body)
}

// crashAfterEffect (QC-03): the dependency takes the consumer's effect
// call, then the consumer is killed before it can ack; restarted, it gets
// the message again and makes no second effect.
func crashAfterEffect(ctx context.Context, q *qcase, m message) check.Result {
	return crashed(ctx, q, m, true)
}

// crashBeforeEffect (QC-04): the consumer is killed while its effect call
// is on its way, before the dependency took it; restarted, it gets the
// message again and makes the effect. A consumer that acked first has
// lost the message.
func crashBeforeEffect(ctx context.Context, q *qcase, m message) check.Result {
	return crashed(ctx, q, m, false)
}

// preKill is how long the crash checks wait, once the effect call is
// held, before the kill: the consumer is blocked on the call, so nothing
// it does changes, but what it did before the call (an ack, as a rule)
// reaches the journal and is judged as done before the crash.
const preKill = 100 * time.Millisecond

func crashed(ctx context.Context, q *qcase, m message, commit bool) check.Result {
	cp := newCrashPoint(commit, q.wait(1), m)
	if err := q.Fault(q.Dependency, q.EffectMatch(0), cp); err != nil {
		return check.Inconclusive("%v", err)
	}
	if _, err := q.p.Broker.Publish(ctx, m.id, m.body); err != nil {
		return check.Inconclusive("%v", err)
	}
	select {
	case <-cp.hit:
	case <-time.After(q.wait(1)):
		return check.Inconclusive("no effect call carrying the message's id or amount (%d) reached the dependency in %s (%s): nothing to crash on", m.amount, check.Ms(q.wait(1)), story(q.events(m.id)))
	case <-ctx.Done():
		return check.Inconclusive("%v", ctx.Err())
	}
	select {
	case <-time.After(preKill):
	case <-ctx.Done():
		return check.Inconclusive("%v", ctx.Err())
	}
	pre := q.events(m.id)
	// The delivery crashed on is at least the last one the consumer
	// answered before the kill; the restarted consumer's is later.
	crashedOn := max(1, deliveries(pre))
	killed := time.Now()
	err := q.p.Crash(ctx)
	cp.release()
	if err != nil {
		return check.Inconclusive("the consumer did not come back after the crash: %v", err)
	}
	back := time.Since(killed)
	where := "after the dependency took its effect call, before the consumer's ack"
	want := "the message delivered again after the restart and acknowledged; 1 effect"
	if !commit {
		where = "on its way to the effect: the dependency never took the call"
		want = "the message delivered again after the restart; the effect made once"
	}
	// A message acked before the crash is never delivered again.
	if acked(pre, 0) {
		seen := fmt.Sprintf("killed %s; %s", where, story(pre))
		if commit {
			return check.Inconclusive("%s: the consumer acknowledged the message before its effect call, so no crash came between its effect and its ack (QC-04 judges acking first)", seen)
		}
		return check.Fail(want, seen+"; the consumer acknowledged the message before its effect call, so the broker will never deliver it again: the effect is lost", q.Evidence()...).Untimed()
	}
	limit := q.wait(2)
	evs := q.await(ctx, m.id, limit, ackedPast(crashedOn))
	seen := fmt.Sprintf("killed %s at delivery %d (restarted in %s); %s", where, crashedOn, check.Ms(back), story(evs))
	if !acked(evs, crashedOn) {
		return check.Fail(want, seen+fmt.Sprintf("; no ack of a later delivery in %s", check.Ms(limit)), q.Evidence()...)
	}
	return oneEffect(ctx, q, want, seen)
}
