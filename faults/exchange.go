package faults

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"
)

// Exchange is one client request in flight, handed to a Fault. Its methods
// are the only way a fault touches the client or the upstream. An Exchange
// is used by one goroutine, except Forward, which may run concurrently.
type Exchange struct {
	p    *Proxy
	w    http.ResponseWriter
	rc   *http.ResponseController
	r    *http.Request
	ctx  context.Context
	body []byte

	rule    *ruleState
	n       uint64
	rnd     *rand.Rand
	started bool     // response headers were written
	lose    LoseMode // set by Lose, carried out when the fault returns
	closing bool     // set by CloseAfter
	status  int

	mu       sync.Mutex // guards entry times and upstream fields, and finished
	entry    Entry
	finished bool
	stopGone func() bool
}

// LoseMode is how a response is lost.
type LoseMode string

// Ways to lose a response.
const (
	// LoseClose closes the connection (FIN) without an answer, or mid-body.
	LoseClose LoseMode = "close"
	// LoseReset aborts the connection with a TCP RST (SO_LINGER 0).
	LoseReset LoseMode = "reset"
)

// ErrRuleRemoved is returned by Exchange.Hold when the exchange's rule was
// removed while holding.
var ErrRuleRemoved = errors.New("faults: rule removed")

// Context returns the request's context: done when the client goes away or
// the proxy closes.
func (ex *Exchange) Context() context.Context { return ex.ctx }

// Request returns the client's request. Its body has already been read: use
// Body. Faults must not modify it.
func (ex *Exchange) Request() *http.Request { return ex.r }

// Body returns the buffered request body; faults must not modify it.
func (ex *Exchange) Body() []byte { return ex.body }

// RuleName returns the name of the rule handling the exchange, or "".
func (ex *Exchange) RuleName() string {
	if ex.rule == nil {
		return ""
	}
	return ex.rule.Name
}

// N returns the exchange's ordinal among the requests its rule counted, from 1.
func (ex *Exchange) N() uint64 { return ex.n }

// Rand returns a generator seeded from the proxy seed, the rule and N, so a
// fault's random choices for the n-th request of a rule do not depend on
// concurrency.
func (ex *Exchange) Rand() *rand.Rand {
	if ex.rnd == nil {
		var key uint64
		if ex.rule != nil {
			key = ex.rule.key
		}
		ex.rnd = rand.New(rand.NewPCG(ex.p.seed^key, ex.n))
	}
	return ex.rnd
}

// Now returns the proxy clock's time.
func (ex *Exchange) Now() time.Time { return ex.p.clock.Now() }

// Sleep waits d on the proxy clock; it returns early with the context's
// error if the client goes away or the proxy closes.
func (ex *Exchange) Sleep(d time.Duration) error { return ex.p.clock.Sleep(ex.ctx, d) }

// Hold waits until limit passes (never, if limit <= 0), returning nil; or
// until the rule is removed, returning ErrRuleRemoved; or until the context
// ends, returning its error.
func (ex *Exchange) Hold(limit time.Duration) error {
	ctx, cancel := context.WithCancelCause(ex.ctx)
	defer cancel(nil)
	if ex.rule != nil {
		removed := ex.rule.removed
		go func() {
			select {
			case <-removed:
				cancel(ErrRuleRemoved)
			case <-ctx.Done():
			}
		}()
	}
	if limit <= 0 {
		<-ctx.Done()
	} else if err := ex.p.clock.Sleep(ctx, limit); err == nil {
		return nil
	}
	if err := ex.ctx.Err(); err != nil {
		return err
	}
	return ErrRuleRemoved
}

// Lose makes the client lose its response: the connection is closed or
// reset when Inject returns. After response headers were sent (e.g. inside a
// Copier) the body is cut short. Over HTTP/2 either mode resets the stream
// alone (RST_STREAM INTERNAL_ERROR), since the connection carries other
// streams. It returns nil so faults can return it.
func (ex *Exchange) Lose(mode LoseMode) error {
	if mode != LoseReset {
		mode = LoseClose
	}
	ex.lose = mode
	return nil
}

// CloseAfter ends the client's connection gracefully once this answer is
// sent: net/http sends "Connection: close" over HTTP/1.1 and GOAWAY over
// HTTP/2, where streams already taken still finish. Call it before the
// response headers go out.
func (ex *Exchange) CloseAfter() { ex.closing = true }

// Pass forwards the request and relays the answer: what happens with no fault.
func (ex *Exchange) Pass() error {
	resp, err := ex.Forward()
	if err != nil {
		return err
	}
	return ex.Reply(resp)
}

func (ex *Exchange) controller() *http.ResponseController {
	if ex.rc == nil {
		ex.rc = http.NewResponseController(ex.w)
	}
	return ex.rc
}

func (ex *Exchange) noteError(err error) {
	ex.mu.Lock()
	if ex.entry.Error == "" {
		ex.entry.Error = err.Error()
	}
	ex.mu.Unlock()
}
