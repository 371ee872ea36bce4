package queue

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/resilcheck/resilcheck/broker"
	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// crashPoint is the dependency fault the crash checks place on the
// consumer's first effect call for the case's message: with Commit the
// dependency takes the call first (the effect is done), without it the
// call never reaches it; either way the proxy then tells the check, which
// kills the consumer, and holds the call until the consumer's connection
// is gone. A call is the message's when it carries the message's id (in a
// header or the body) or its amount (in the body): an earlier case's
// late call passes, as does every call once the crash point fired.
type crashPoint struct {
	Commit bool          `attr:"commit"`
	Hold   time.Duration `attr:"hold"`
	ID     string        `attr:"id"`
	Amount int           `attr:"amount"`

	mu    sync.Mutex
	fired bool
	hit   chan struct{} // closed when the call is where the crash belongs
}

func init() { faults.Register("queue-crash-point", func() faults.Fault { return new(crashPoint) }) }

func newCrashPoint(commit bool, hold time.Duration, m message) *crashPoint {
	return &crashPoint{Commit: commit, Hold: hold, ID: m.id, Amount: m.amount, hit: make(chan struct{})}
}

// Inject passes a call that is not the message's, or comes after the
// first that was; on that first it forwards when Commit, signals the
// crash and holds.
func (f *crashPoint) Inject(ex *faults.Exchange) error {
	f.mu.Lock()
	mine := !f.fired && f.carries(ex)
	f.fired = f.fired || mine
	f.mu.Unlock()
	if !mine {
		return ex.Pass()
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
	if err := ex.Hold(f.Hold); err != nil {
		return err
	}
	return ex.Lose(faults.LoseReset)
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
	amount := regexp.MustCompile(`(^|[^0-9.])` + strconv.Itoa(f.Amount) + `([^0-9.]|$)`)
	return amount.Match(body)
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
	killed := time.Now()
	if err := q.p.Crash(ctx); err != nil {
		return check.Inconclusive("the consumer did not come back after the crash: %v", err)
	}
	back := time.Now()
	where := "after the dependency took its effect call, before the consumer's ack"
	want := "the message delivered again after the restart and acknowledged; 1 effect"
	if !commit {
		where = "on its way to the effect: the dependency never took the call"
		want = "the message delivered again after the restart; the effect made once"
	}
	// A message acked before the crash is never delivered again, which
	// the journal shows at once; else wait for the redelivery the crash
	// owes, an ack_wait after the kill.
	if evs := q.events(m.id); ackedBefore(evs, killed) {
		seen := fmt.Sprintf("killed %s; %s", where, story(evs))
		if commit {
			return check.Inconclusive("%s: the consumer acknowledged the message before its effect call, so no crash came between its effect and its ack (QC-04 judges acking first)", seen)
		}
		return notTimed(check.Fail(want, seen+"; the consumer acknowledged the message before its effect call, so the broker will never deliver it again: the effect is lost", q.Evidence()...))
	}
	limit := q.wait(2)
	evs := q.await(ctx, m.id, limit, ackedAfter(killed))
	seen := fmt.Sprintf("killed %s (restarted in %s); %s", where, check.Ms(back.Sub(killed)), story(evs))
	if !acked(evs, killed) {
		return notTimed(check.Fail(want, seen+fmt.Sprintf("; no ack after the restart in %s", check.Ms(limit)), q.Evidence()...))
	}
	return oneEffect(ctx, q, want, seen)
}

// ackedBefore reports whether evs hold an ack sent before t.
func ackedBefore(evs []broker.Event, t time.Time) bool {
	for _, e := range evs {
		if e.Kind == broker.Acked && e.At.Before(t) {
			return true
		}
	}
	return false
}
