package check

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
)

// SuiteNames returns the names of suites, in order.
func SuiteNames(suites []Suite) []string {
	names := make([]string, len(suites))
	for i, s := range suites {
		names[i] = s.Name
	}
	return names
}

// Select returns the checks of the named suites among suites (all when
// names is empty), or an error naming an unknown suite.
func Select(suites []Suite, names ...string) ([]Check, error) {
	if len(names) == 0 {
		names = SuiteNames(suites)
	}
	var out []Check
	for _, n := range names {
		i := slices.IndexFunc(suites, func(s Suite) bool { return s.Name == n })
		if i < 0 {
			return nil, fmt.Errorf("check: unknown suite %q (known: %s)", n, strings.Join(SuiteNames(suites), ", "))
		}
		out = append(out, suites[i].Checks...)
	}
	return out, nil
}

// Progress is told when each check starts and finishes; it may be nil.
type Progress func(c Check, done bool, res reports.Check)

// Run executes checks in order and returns their report entries. When ctx
// ends it stops, and the checks not run are omitted; a check that panics is
// reported inconclusive with the panic, so one bug does not lose the run.
func Run(ctx context.Context, h *Harness, checks []Check, progress Progress) []reports.Check {
	var out []reports.Check
	for _, c := range checks {
		if ctx.Err() != nil {
			break
		}
		if progress != nil {
			progress(c, false, reports.Check{})
		}
		start := time.Now()
		res := Judge(ctx, h, c)
		if ctx.Err() != nil && res.Status != reports.StatusPass {
			break // interrupted mid-check: its verdict would be a guess
		}
		rc := h.toReport(c, res, time.Since(start))
		out = append(out, rc)
		if progress != nil {
			progress(c, true, rc)
		}
	}
	return out
}

// CheckTimeout bounds one check, so a target that stalls every request
// cannot hold the run; a check that reaches it is inconclusive.
const CheckTimeout = 90 * time.Second

// exploreShrinkRoom is what a property may spend past its exploring time
// shrinking and replaying a failure.
const exploreShrinkRoom = 30 * time.Second

// checkTimeout bounds one check: CheckTimeout, lengthened by the exploring
// time --explore set and a second per case --explore-cases asks for, so a
// long exploration or replay (and the shrinking of what it found) is not cut
// short as a stalled target.
func (h *Harness) checkTimeout() time.Duration {
	if h.Explore > 0 || h.ExploreCases > 0 {
		return CheckTimeout + h.Explore + time.Duration(h.ExploreCases)*time.Second + exploreShrinkRoom
	}
	return CheckTimeout
}

// Judge runs c once on h as Run does, and returns its verdict: not
// applicable when a need is unmet, inconclusive on a noisy runner or when
// c panics, and a timed failure during a stall judged again.
func Judge(parent context.Context, h *Harness, c Check) (res Result) {
	defer func() {
		if p := recover(); p != nil {
			res = Inconclusive("internal error in check %s: %v\n%s", c.ID, p, debug.Stack())
		}
	}()
	if h.NoOperations {
		if s := h.suite(c.Suite); s == nil || !s.OwnTraffic {
			return NotApplicable("the target declares no operations: only the roles it declares that bring their own traffic (queue_consumer, webhooks) are certified")
		}
	}
	for _, n := range c.Needs {
		if why := n.Unmet(h); why != "" {
			return NotApplicable("%s", why)
		}
	}
	if why := h.tooNoisy(c); why != "" {
		return NoisyRunner("%s", why)
	}
	res, seen := h.watched(parent, c, c.ID)
	if d := h.doubted(c, res, seen); d != nil && parent.Err() == nil {
		return h.rejudged(parent, c, res, seen, d)
	}
	if res.Status == reports.StatusFail && seen.worst > h.stallLimit(c, res) && res.Margin != NotTimed {
		res.Observed += fmt.Sprintf(" (the runner stalled up to %s during this run, %s in all, less than the %s the failure was late by)",
			Ms(seen.worst), Ms(seen.total), Ms(res.Margin))
	}
	return res
}

// once runs c once in a case of its own, named id (which seeds its
// draws), bounded by checkTimeout.
func (h *Harness) once(parent context.Context, c Check, id string) Result {
	timeout := h.checkTimeout()
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	cs := h.NewCase(ctx, id)
	defer cs.Done(ctx)
	res := c.Run(ctx, cs)
	if res.Status == reports.StatusFail && len(h.Hops) > 0 && res.Tier == "" && len(h.blameRules(c)) > 0 {
		b := h.blame(c, cs, res)
		res.Tier = b.Tier
		res.Observed += "; " + b.String()
	}
	if ctx.Err() != nil && parent.Err() == nil {
		out := Inconclusive("the check did not finish within %s: the target stalled (last observation: %s%s)", timeout, res.Observed, res.Reason)
		out.stuck = true
		return out
	}
	if res.Status == reports.StatusInconclusive && !res.Noisy {
		if why := cs.starvedHeal(); why != "" {
			return NoisyRunner("%s (%s)", res.Reason, why)
		}
	}
	if res.Status == reports.StatusPass {
		if why := cs.degenerate(); why != "" {
			return Inconclusive("%s; the check would have passed: %s", why, res.Observed)
		}
	}
	return res
}

// maxEvidence bounds the exchanges a check keeps in the report; a longer
// run keeps those around each injected fault (reports.SampleEvidence) and
// its rate and latency over time (reports.NewLoad).
const maxEvidence = 40

func (h *Harness) toReport(c Check, r Result, took time.Duration) reports.Check {
	rc := reports.Check{
		ID: c.ID, Suite: c.Suite, Title: c.Title, Source: c.Source, Level: c.Level,
		Status: r.Status, Expected: r.Expected, Observed: r.Observed, Reason: r.Reason, Noisy: r.Noisy, Tier: r.Tier,
		Counterexample: r.Counterexample, Duration: reports.Duration(took),
		Reproduce: r.Reproduce,
	}
	if rc.Reproduce == "" && h.Reproduce != "" {
		rc.Reproduce = h.Reproduce + " --check " + c.ID
		if r.FailedCase > 0 && h.ExploreCases == 0 {
			// A time budget may end before case N on a slower replay.
			rc.Reproduce += fmt.Sprintf(" --explore-cases %d", r.FailedCase)
		}
	}
	if s := h.suite(c.Suite); s != nil && s.Evidence != nil {
		rc.Evidence = s.Evidence(r.Evidence)
		return rc
	}
	all := make([]reports.Exchange, len(r.Evidence))
	for i, e := range r.Evidence {
		all[i] = exchange(e)
	}
	if len(all) > 0 {
		rc.Evidence = reports.SampleEvidence(all, maxEvidence)
	}
	if len(all) > len(rc.Evidence) {
		rc.EvidenceTotal = len(all)
	}
	rc.Load = reports.NewLoad(all)
	return rc
}

// blame lays c's failure res at a tier. A property's case window spans
// every case it drew: only the failing case's exchanges tell its tier, the
// evidence it gives or, where that shows no request, the case the kit kept
// (ExploreEach).
func (h *Harness) blame(c Check, cs *Case, res Result) Blame {
	hasFront := slices.ContainsFunc(res.Evidence, func(e faults.Entry) bool { return e.Side == "front" })
	if !c.Explores || hasFront {
		return h.BlameFor(h.blameRules(c), h.blameEntries(cs.Evidence(), res.Evidence), res.Evidence)
	}
	if failed := h.failedCaseOf(cs.ID); len(failed) > 0 {
		return h.BlameFor(h.blameRules(c), failed, nil)
	}
	return Blame{Why: "the property's failing case left no exchanges to follow"}
}

// blameEntries are the exchanges a failure's tier is judged by: the case's,
// its evidence (a property's may come from a copy lent to it, whose journal
// is not the case's), and the front and hop exchanges of the journal while
// the evidence's front requests earlier than the case were in flight (a
// run-wide check judges answers from the whole run).
func (h *Harness) blameEntries(window, evidence []faults.Entry) []faults.Entry {
	all := unionByID(window, evidence)
	first, _ := evidenceSpan(window)
	earlier := slices.DeleteFunc(slices.Clone(evidence), func(e faults.Entry) bool {
		return e.Side != "front" || !first.IsZero() && !e.Received.Before(first)
	})
	lo, hi := evidenceSpan(earlier)
	if lo.IsZero() {
		return all
	}
	// The fronts in flight beside them come too, so a hop exchange is not
	// taken for an evidence request's when another's was in flight.
	around := h.Journal.After(0, func(e *faults.Entry) bool {
		_, hop := HopTier(e.Side)
		return (hop || e.Side == "front") && !e.Received.After(hi) && (e.Finished.IsZero() || !e.Finished.Before(lo))
	})
	return unionByID(all, around)
}

// unionByID is a followed by the entries of b it lacks.
func unionByID(a, b []faults.Entry) []faults.Entry {
	seen := make(map[string]bool, len(a))
	for _, e := range a {
		seen[e.ID] = true
	}
	for _, e := range b {
		if !seen[e.ID] {
			a = append(a, e)
		}
	}
	return a
}

// blameRules are c's rules for blaming a tier: its own, else its suite's,
// else DefaultBlame.
func (h *Harness) blameRules(c Check) []BlameRule {
	if c.Blame != nil {
		return c.Blame
	}
	if s := h.suite(c.Suite); s != nil && s.Blame != nil {
		return s.Blame
	}
	return DefaultBlame
}

// suite returns h's suite named name, or nil.
func (h *Harness) suite(name string) *Suite {
	i := slices.IndexFunc(h.Suites, func(s Suite) bool { return s.Name == name })
	if i < 0 {
		return nil
	}
	return &h.Suites[i]
}

// exchange converts a journal entry into report evidence.
func exchange(e faults.Entry) reports.Exchange {
	x := reports.Exchange{
		ID: e.Seq, Entry: e.ID, Side: e.Side, Method: e.Method, Path: e.Path,
		Headers: e.Headers, Status: e.Status, Fault: e.Fault,
		At: reports.Duration(max(e.Offset(e.Received), 0)),
	}
	if !e.Finished.IsZero() {
		x.Took = reports.Duration(e.Finished.Sub(e.Received))
	}
	var notes []string
	if len(e.UpstreamStatuses) > 0 {
		notes = append(notes, fmt.Sprintf("upstream %v", e.UpstreamStatuses))
	}
	if len(e.UpstreamGRPCStatuses) > 0 {
		notes = append(notes, "upstream grpc-status "+grpcStatusesText(e.UpstreamGRPCStatuses))
	}
	if ra := e.ResponseHeader("Retry-After"); ra != "" {
		notes = append(notes, "Retry-After: "+ra)
	}
	if !e.ClientGone.IsZero() {
		notes = append(notes, fmt.Sprintf("client gone after %s", e.ClientGone.Sub(e.Received).Round(time.Millisecond)))
	}
	if e.Error != "" {
		notes = append(notes, e.Error)
	}
	x.Note = strings.Join(notes, "; ")
	return x
}

// grpcStatusesText renders the upstream copies' grpc-status codes, "unread"
// where the journal knows none (-1), as "[unread 14]".
func grpcStatusesText(codes []int) string {
	words := make([]string, len(codes))
	for i, c := range codes {
		words[i] = "unread"
		if c >= 0 {
			words[i] = strconv.Itoa(c)
		}
	}
	return "[" + strings.Join(words, " ") + "]"
}

// Evidence returns the check's exchanges on both proxies, in finishing order.
func (c *Case) Evidence() []faults.Entry {
	ev := c.Harness.Journal.After(c.mark)
	return slices.Clip(ev)
}
