package clients

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
)

// Options tune a run; zero values mean the defaults.
type Options struct {
	// Scenarios replaces the built-in scenarios (Scenarios()); append to
	// them to extend the suite.
	Scenarios []Scenario
	// Checks selects checks by ID; empty = all.
	Checks []string
	// Seed seeds the server's random choices; 0 = 1.
	Seed uint64
	// Tolerance is the slack of the time bounds.
	Tolerance Tolerance
	// Journal receives the server's entries; nil = a journal of its own.
	Journal *faults.Journal
	// Limit and Grace bound each call as the package's Limit and Grace
	// do; zero or less = those.
	Limit, Grace time.Duration
}

// Tolerance is the slack of the one-sided time bounds.
type Tolerance struct {
	// Early: no attempt earlier than a bound minus this (default 50 ms).
	Early time.Duration
	// Late: an operation ends no later than its deadline plus this (default
	// 500 ms), timed from its first attempt, which absorbs a client
	// process's exit and a busy runner's delays.
	Late time.Duration
	// StartUp: the time a call takes to send its first attempt (starting a
	// client process, loading its runtime) is not counted against its
	// deadline, up to this (default 10 s): the deadline, and the harness's
	// limit on the call, are timed from the first attempt's arrival, or
	// from this long after the call began when none came sooner.
	StartUp time.Duration
}

// DefaultStartUp is Tolerance.StartUp's default: ten seconds, above the
// 1.8–7.4 s a Node.js client was measured to take to send its first
// attempt with every scenario's process starting at once on two busy cores.
const DefaultStartUp = 10 * time.Second

func (t Tolerance) withDefaults() Tolerance {
	if t.Early <= 0 {
		t.Early = 50 * time.Millisecond
	}
	if t.Late <= 0 {
		t.Late = 500 * time.Millisecond
	}
	if t.StartUp <= 0 {
		t.StartUp = DefaultStartUp
	}
	return t
}

// Limit bounds a call the client declares no deadline for; a call with a
// deadline is cut at the deadline plus Grace. Both are timed as the
// deadline is, from the call's first attempt (Tolerance.StartUp). A cut
// call fails the deadline checks where the client declares a deadline;
// otherwise the checks that judge how a call ends are inconclusive, and
// say so.
const (
	Limit = 20 * time.Second
	Grace = 5 * time.Second
)

// limits are the harness's bounds on a call, as Options set them.
type limits struct {
	limit, grace time.Duration
}

func (o Options) limits() limits { return limits{limit: o.Limit, grace: o.Grace}.withDefaults() }

func (l limits) withDefaults() limits {
	return limits{limit: cmp.Or(max(l.limit, 0), Limit), grace: cmp.Or(max(l.grace, 0), Grace)}
}

// of returns the limit on a call of a client with policy p.
func (l limits) of(p Policy) time.Duration {
	if p.Deadline > 0 {
		return p.Deadline + l.grace
	}
	return l.limit
}

func (l limits) String() string {
	return fmt.Sprintf("deadline + %s, or %s without one, from the first attempt", l.grace, l.limit)
}

// ErrInvalid means Run was given a policy, check or scenario it cannot
// run with: the caller's mistake, found before any call.
var ErrInvalid = errors.New("clients: invalid input")

// ErrNoTraffic means no scenario's call reached the server: the client is
// misconfigured (a wrong URL in its command), and no check could judge it.
var ErrNoTraffic = errors.New("clients: the client never called the harness")

// ScenarioRun is one scenario's call and what the server saw of it.
type ScenarioRun struct {
	Scenario Scenario
	Expect   Outcome // what the client's policy makes of Scenario.Expect
	Call     Call
	Start    time.Time
	End      time.Time
	Err      error  // what the client reported; nil = success
	Cut      bool   // the harness ended the call at its limit
	Skipped  string // why the scenario did not run; empty = it ran
	Instance int    // which of the scenario's concurrent instances, from 1
	id       string // the run's path segment: the scenario's ID, -N for an instance
	// Attempts are the server's journal entries for the call, by arrival.
	Attempts []faults.Entry
	// limit is how long after its first attempt the harness cuts the call.
	limit time.Duration
}

// Took is how long the call lasted.
func (r *ScenarioRun) Took() time.Duration { return r.End.Sub(r.Start) }

// StartUp is how long the call took to send its first attempt (for a
// command, mostly starting its process); the whole call when it sent none.
func (r *ScenarioRun) StartUp() time.Duration {
	if len(r.Attempts) == 0 {
		return r.Took()
	}
	return max(r.Attempts[0].Received.Sub(r.Start), 0)
}

// clock returns the instant the call's deadline is timed from: its first
// attempt's arrival, or allowance after the call began if that is sooner.
func (r *ScenarioRun) clock(allowance time.Duration) time.Time {
	return r.Start.Add(min(r.StartUp(), allowance))
}

// own is how long the call took by the deadline's clock: its start-up,
// up to allowance, not counted.
func (r *ScenarioRun) own(allowance time.Duration) time.Duration {
	return max(r.End.Sub(r.clock(allowance)), 0)
}

// succeeded says whether the last attempt (one of its copies, for a
// hedging client) was answered 2xx.
func (r *ScenarioRun) succeeded() bool {
	if len(r.Attempts) == 0 {
		return false
	}
	// The last attempt, with its hedged copies: any of them may be the one
	// answered, the others cancelled.
	groups := check.Overlapping(r.Attempts, 0)
	for _, e := range groups[len(groups)-1] {
		if e.Status >= 200 && e.Status < 300 && e.ClientGone.IsZero() {
			return true
		}
	}
	return false
}

// Result is a finished run of the client suite.
type Result struct {
	Policy     Policy
	Runs       []*ScenarioRun
	Checks     []reports.Check
	Tolerances []reports.Tolerance
	Journal    *faults.Journal
}

// Failed returns the checks that failed.
func (r *Result) Failed() []reports.Check {
	return slices.DeleteFunc(slices.Clone(r.Checks), func(c reports.Check) bool { return c.Status != reports.StatusFail })
}

// Run certifies c: it serves every scenario at its own path, calls c once
// per scenario, all at once, and judges the runs with the client suite's
// checks against p.
func Run(ctx context.Context, c Client, p Policy, opts Options) (*Result, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	suite := Suite(Config{Policy: p, Tolerance: opts.Tolerance, limits: opts.limits()})
	checks, err := selectChecks(suite.Checks, opts.Checks)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	scenarios := opts.Scenarios
	if scenarios == nil {
		scenarios = Scenarios()
	}
	if err := ValidateScenarios(scenarios); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	seed := cmp.Or(opts.Seed, 1)
	srv, err := NewServer(opts.Journal, p.keyHeader(), seed)
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	var runs []*ScenarioRun
	for _, sc := range scenarios {
		for k := range max(sc.Instances, 1) {
			r := &ScenarioRun{Scenario: sc, Expect: sc.expected(p), Instance: k + 1, id: sc.ID}
			if sc.Instances > 1 {
				r.id = fmt.Sprintf("%s-%d", sc.ID, k+1)
			}
			if sc.stalls() && p.AttemptTimeout == 0 {
				r.Skipped = "the client declares no attempt timeout, so a stalled attempt would hold it to its deadline"
			}
			if sc.slow() && p.HedgeDelay == 0 {
				r.Skipped = "the client declares no hedging, so a slow answer would only be waited out"
			}
			runs = append(runs, r)
		}
	}
	limit, startUp := opts.limits().of(p), opts.Tolerance.withDefaults().StartUp
	var wg sync.WaitGroup
	watch := check.WatchStalls()
	for _, r := range runs {
		if r.Skipped == "" {
			wg.Go(func() { r.do(ctx, srv, c, p, limit, startUp) })
		}
	}
	wg.Wait()
	stalls := watch()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("clients: interrupted: %w", err)
	}
	if !slices.ContainsFunc(runs, func(r *ScenarioRun) bool { return len(r.Attempts) > 0 }) {
		return nil, fmt.Errorf("%w: %w", ErrNoTraffic, firstError(runs))
	}
	h := &check.Harness{Journal: srv.Journal(), Seed: seed, Suites: []check.Suite{suite}}
	*keptRuns(h) = runs
	*keptStalls(h) = stalls
	res := &Result{Policy: p, Runs: runs, Journal: srv.Journal(), Tolerances: suite.Tolerances(h)}
	res.Checks = check.Run(ctx, h, checks, nil)
	if err := ctx.Err(); err != nil { // check.Run left out the checks after the interrupt
		return nil, fmt.Errorf("clients: interrupted: %w", err)
	}
	return res, nil
}

// firstError is the first error a scenario's call reported, wrapped, so
// callers can tell a command that never started from one that ran.
func firstError(runs []*ScenarioRun) error {
	for _, r := range runs {
		if r.Err != nil {
			return fmt.Errorf("scenario %s: %w", r.id, r.Err)
		}
	}
	return errors.New("no call reported an error either")
}

// do calls the client for the run's scenario and collects its attempts.
// The harness cuts the call limit after its first attempt arrives, or
// after startUp and limit when none arrives within startUp.
func (r *ScenarioRun) do(ctx context.Context, srv *Server, c Client, p Policy, limit, startUp time.Duration) {
	base, err := srv.Add(r.Scenario, r.id)
	if err != nil {
		r.Skipped, r.Err = err.Error(), err
		return
	}
	r.Call = Call{Scenario: r.id, URL: base + callPath, Base: base, Method: r.Scenario.method(), KeyHeader: p.keyHeader()}
	if r.Scenario.Key {
		r.Call.Key = uuid.NewString()
	}
	if r.Scenario.method() != "GET" && r.Scenario.method() != "HEAD" {
		r.Call.Body = fmt.Sprintf(`{"scenario":%q,"amount":100}`, r.Scenario.ID)
	}
	r.limit = limit
	r.Start = time.Now()
	cctx, cancel := context.WithDeadline(ctx, r.Start.Add(startUp+limit))
	defer cancel()
	cctx, cut := context.WithCancelCause(cctx)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		srv.cutAfter(cctx, r.id, r.Start, r.Start.Add(startUp), limit, cut)
	}()
	r.Err = c.Do(cctx, r.Call)
	r.End = time.Now()
	r.Cut = cctx.Err() != nil && ctx.Err() == nil
	cut(nil) // ends the watch
	<-watched
	r.Attempts = srv.Remove(ctx, r.id)
	slices.SortFunc(r.Attempts, func(a, b faults.Entry) int { return a.Received.Compare(b.Received) })
}
