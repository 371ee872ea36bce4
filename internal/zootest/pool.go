package zootest

import (
	"strings"
	"sync"
	"testing"

	"github.com/resilcheck/resilcheck/certify"
)

// AtOnce is how many certifications CertifyDirsWith runs side by side.
// The zoo's process targets mostly wait on timers: run one at a time, the
// outbox, queue, webhook and conventions packages spent 4 to 16 % of a
// core. Two at once halve their wall time; three did more, but the load
// they put beside the package go test runs with them left the Python and
// Node zoos' lockstep verdicts to starved targets in a CI rehearsal.
const AtOnce = 2

// Pool runs certifications side by side, at most n at once, so a test can
// start them all and then judge each in a subtest of its own.
type Pool struct{ slots chan struct{} }

// NewPool returns a pool of n slots; n < 1 is taken as 1.
func NewPool(n int) *Pool { return &Pool{slots: make(chan struct{}, max(n, 1))} }

// Certified is one certification's outcome and the target's output.
type Certified struct {
	Result *certify.Result
	Err    error
	Log    string
}

// Must returns the result, failing t with the error and the target's
// output when the run could not be made.
func (c Certified) Must(t *testing.T) *certify.Result {
	t.Helper()
	if c.Err != nil {
		t.Fatalf("Run: %v\n%s", c.Err, c.Log)
	}
	return c.Result
}

// Go starts certifying cfg when a slot is free and returns a function that
// waits for the outcome, as often as it is called. The target's output is
// captured in Log, so cfg.TargetLog is replaced. The certification runs on
// t's context, cancelled once t and its subtests are over, and t's cleanup
// waits for it: one no subtest waited for (a -run filter left its subtest
// out, or t failed before its subtests began) neither runs on nor outlives
// the test.
func (p *Pool) Go(t testing.TB, cfg certify.Config) func() Certified {
	ctx := t.Context()
	done := make(chan Certified, 1)
	over := make(chan struct{})
	go func() {
		defer close(over)
		select {
		case p.slots <- struct{}{}:
		case <-ctx.Done():
			done <- Certified{Err: ctx.Err()}
			return
		}
		defer func() { <-p.slots }()
		var log strings.Builder
		cfg.TargetLog = &log
		res, err := certify.Run(ctx, cfg)
		done <- Certified{Result: res, Err: err, Log: log.String()}
	}()
	t.Cleanup(func() { <-over })
	return sync.OnceValue(func() Certified { return <-done })
}
