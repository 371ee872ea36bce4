package check

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
)

// Check is one certified assertion: an ID, where the rule comes from and how
// strongly it is stated, what the target must declare or show for the check
// to apply, and a function that exercises the target and judges it. Run
// gets a Case built from ID (the runner removes its rules afterwards) and
// must return when ctx is done.
type Check struct {
	ID     string // e.g. "IK-07"; written here only, checks read it from their Case
	Suite  string // e.g. "idempotency"
	Title  string
	Source string // public citation, e.g. "draft-ietf-httpapi-idempotency-key-header-07 §2.6"
	Level  reports.Level
	Needs  []Need // all must be met, or the check is not applicable
	// Timed says the verdict rests on measured time (a wait, a window, a
	// deadline): on a noisy runner the check is inconclusive rather than
	// guessed, and a failure during a stall of the runner is judged again.
	Timed bool
	// Explores says the check is a property that draws cases for a time
	// budget (--explore): a runner with several copies of the target lends
	// it half of them, up to five, a worker drawing cases on each
	// (Harness.Beside), and starts it before the checks that take one.
	Explores bool
	// Takes is about how long the check runs against a prompt target (a
	// property's default exploring time, a window or a backoff it waits
	// out): a runner with several copies starts the longest first, so the
	// last copy does not finish long after the others, and takes it for the
	// check's duration when it lets a check start early on copies a
	// property waiting for its own leaves idle. 0 means brief (about 1 s).
	Takes time.Duration
	// RunWide says the check judges every exchange of the run so far (all
	// the 429s the target sent, every response on a rate-limited route), not
	// only its case's: a runner with several copies of the target runs it
	// after the others, beside the other run-wide checks, with a journal of
	// every copy's exchanges.
	RunWide bool
	// Blame is how a failure on a multi-tier target is laid at a tier's
	// door, the rules tried in order; nil means the suite's.
	Blame []BlameRule
	Run   func(ctx context.Context, c *Case) Result
}

// Suite is one contract's checks, in the order they run, named as reports
// name the suite. The zero Tolerances and Slack add nothing to the harness's
// own.
type Suite struct {
	Name   string
	Checks []Check
	// Tolerances lists the thresholds the suite's checks judge by, with the
	// values h gives them, so a reader of the report can weigh a verdict.
	Tolerances func(h *Harness) []reports.Tolerance
	// Slack is the least time slack the suite's timed checks judge with. A
	// timing failure of one of them during which the runner stalled longer
	// is judged again; nil means the harness's slack.
	Slack func(h *Harness) time.Duration
	// Config is the suite's own settings, which its checks read with
	// SuiteConfig; nil means the suite's defaults.
	Config any
	// Evidence, when set, turns the Evidence of a check's Result into the
	// report's, kept whole: for a suite whose exchanges read otherwise (the
	// client suite names each one's scenario) and are few. Nil means the
	// kit's: each entry with a service exchange's notes, sampled around the
	// injected faults (reports.SampleEvidence), with its load over time.
	Evidence func(ev []faults.Entry) []reports.Exchange
	// Blame is its checks' rules for blaming a tier, unless a check has its
	// own; nil means DefaultBlame, and an empty list that no tier is blamed
	// (failures no tier's exchanges show, such as a queue consumer's).
	Blame []BlameRule
	// OwnTraffic says the suite's checks drive the target only through the
	// role they judge (a broker's messages, webhook deliveries), never its
	// operations, so they apply to a target that declares none.
	OwnTraffic bool
}

// Result is a check's verdict with what it expected, what it saw and the
// exchanges that prove it.
type Result struct {
	Status         reports.Status
	Expected       string
	Observed       string
	Reason         string // why not applicable or inconclusive
	Evidence       []faults.Entry
	Counterexample []string
	Reproduce      string // overrides the default reproduce command
	// Margin is how far past its time bound (tolerance included) a failure
	// went, when one measured time decided it; 0 when unknown. A failure
	// later than every stall of the runner together stands as judged.
	Margin time.Duration
	// Waited, when set, is when the runner began and ended the wait a
	// timed failure measures, for a wait its evidence may not cover (a
	// request the front proxy saw late, or never): the runner's stalls
	// over it are weighed too.
	Waited Span
	// FailedCase is the property case that failed (1-based), 0 for a
	// check that does not explore; the reproduce line replays that many.
	FailedCase int
	// Quiet, when > 0, is the longest stall of the runner a pass can bear:
	// a pass that rests on how closely events fell together (no lockstep)
	// is not trusted from a run the runner stalled longer in, since the
	// stall alone may have spread them; the check is judged again, as a
	// failure during a stall is.
	Quiet time.Duration
	// Unreplayed marks a property's failure whose shrunk case did not fail
	// again on replay. Timed, and late by no more than the runner's
	// lateness while the check ran, it is judged again however short each
	// stall was: many small delays add up as one long one does.
	Unreplayed bool
	// Untold marks a property's failure whose shrunk case failed when
	// checked but not when replayed once more to tell its story; it is
	// judged again as an Unreplayed one is.
	Untold bool
	// stuck marks the verdict on a check that did not finish in time: the
	// target's hang, which no stall of the runner makes a noisy runner's.
	stuck bool
	// Noisy marks an inconclusive verdict the runner's own slowness made
	// (the harness fell short of its request rate, say), not the target:
	// a timed check so judged runs again. Made by NoisyRunner.
	Noisy bool
	// Tier is the tier of a multi-tier target the failure lies with, when
	// the check named it itself (Observed then says why); else the runner
	// blames one by the check's BlameRules.
	Tier string
}

// Span is a stretch of time; the zero Span is none.
type Span struct{ From, To time.Time }

// NotTimed is the Margin of a failure no stall of the runner can cause (a
// malformed header, a count of calls): it stands as judged.
const NotTimed = time.Duration(math.MaxInt64)

// Untimed is r marked as resting on no measured time (its Margin
// NotTimed): a count, a header, a journal's order. A stall of the runner
// does not void it.
func (r Result) Untimed() Result {
	r.Margin = NotTimed
	return r
}

// Pass is the verdict of a check whose rule held: what was expected, what
// was seen, and the exchanges that show it.
func Pass(expected, observed string, ev ...faults.Entry) Result {
	return Result{Status: reports.StatusPass, Expected: expected, Observed: observed, Evidence: ev}
}

// Fail is the verdict of a check whose rule was broken: what was expected,
// what was seen instead, and the exchanges that prove it.
func Fail(expected, observed string, ev ...faults.Entry) Result {
	return Result{Status: reports.StatusFail, Expected: expected, Observed: observed, Evidence: ev}
}

// Inconclusive is the verdict of a check that could not exercise what it
// judges (the target never failed, the runner was too busy); the reason is
// formatted like fmt.Sprintf.
func Inconclusive(format string, a ...any) Result {
	return Result{Status: reports.StatusInconclusive, Reason: fmt.Sprintf(format, a...)}
}

// NoisyRunner is the inconclusive verdict of a check the runner kept from
// judging, by its own slowness: the reason, formatted like fmt.Sprintf,
// follows "noisy runner: ". A timed check so judged runs again.
func NoisyRunner(format string, a ...any) Result {
	return Result{Status: reports.StatusInconclusive, Reason: "noisy runner: " + fmt.Sprintf(format, a...), Noisy: true}
}

// NotApplicable is the verdict of a check whose subject the target does not
// declare or show; the reason is formatted like fmt.Sprintf.
func NotApplicable(format string, a ...any) Result {
	return Result{Status: reports.StatusNotApplicable, Reason: fmt.Sprintf(format, a...)}
}

// SuiteConfig returns the Config of h's suite named name, as that suite's
// checks read their settings; the zero T when h has no such suite or it
// keeps no T.
func SuiteConfig[T any](h *Harness, name string) T {
	for _, s := range h.Suites {
		if s.Name == name {
			if cfg, ok := s.Config.(T); ok {
				return cfg
			}
		}
	}
	var zero T
	return zero
}
