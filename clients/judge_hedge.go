package clients

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// needHedging: the client declares how it hedges.
var needHedging = check.Need{Name: "client hedging", Doc: "the client declares that it hedges a slow attempt (client.policy.hedging: delay, max_copies)",
	Unmet: func(h *check.Harness) string {
		if policyOf(h).HedgeDelay == 0 {
			return "the client declares no hedging (client.policy.hedging)"
		}
		return ""
	}}

// hedged returns the runs of the scenarios that answer slowly, with their
// attempts grouped by overlap: each group an attempt and its copies.
func (j *judging) hedged() ([]*ScenarioRun, [][][]faults.Entry) {
	var runs []*ScenarioRun
	var groups [][][]faults.Entry
	for _, r := range j.ran() {
		if r.Scenario.slow() && len(r.Attempts) > 0 {
			// No margin: the slow answers are successes, which no retry
			// follows, so a call started before one ended is its copy,
			// however late the client's timer fired on a busy runner.
			runs, groups = append(runs, r), append(groups, check.Overlapping(r.Attempts, 0))
		}
	}
	return runs, groups
}

// judgeHedgeDelay (CL-14): a slow attempt gets a copy, and no copy comes
// before the declared delay while the copies before it are pending. A late
// copy is not judged: a busy runner fires a client's timer late. The
// delay runs from when the client began the attempt, which the server sees
// only as the first copy's arrival: the operation's first attempt may
// arrive late by a new process's or connection's start-up, so only the
// attempts after it, on a client already running, are timed.
func judgeHedgeDelay(j *judging) check.Result {
	d := j.policy.HedgeDelay
	want := fmt.Sprintf("a slow attempt gets its next copy once it has been outstanding %s, not before (−%s)", d, j.tol.Early)
	runs, groups := j.hedged()
	if len(runs) == 0 {
		return check.Inconclusive("no scenario with a slow answer ran")
	}
	var seen []string
	for i, r := range runs {
		slow := slices.IndexFunc(groups[i], func(g []faults.Entry) bool { return r.Scenario.step(attemptNo(r, g[0])).Delay > 0 })
		if slow < 0 {
			return check.Inconclusive("%s: no attempt met a slow answer (%s)", r.id, answers(r.Attempts))
		}
		if held := r.Scenario.step(attemptNo(r, groups[i][slow][0])).Delay; d+j.tol.Late >= held {
			// A copy would be due too close to the answer, or after it.
			return check.Inconclusive("%s: the declared delay %s (+%s) is not shorter than the scenario's slow answer %s: no copy is due", r.id, d, j.tol.Late, held)
		}
		if len(groups[i][slow]) < 2 {
			return check.Fail(want, fmt.Sprintf("%s: an attempt answered after %s got no copy (%s): the declared hedging did not happen",
				r.id, r.Scenario.step(attemptNo(r, groups[i][slow][0])).Delay, copiesText(groups[i][slow])), r.Attempts...)
		}
		for _, g := range groups[i][1:] {
			for k := 1; k < len(g); k++ {
				gap := g[k].Received.Sub(g[k-1].Received)
				if gap >= d-j.tol.Early {
					continue
				}
				early := fmt.Sprintf("%s: copy %d came %s after copy %d: %s", r.id, k+1, gap.Round(time.Millisecond), k, copiesText(g))
				// Copy k+1 is due the delay after the client began the
				// attempt, which is when copy k left only if the client
				// sent it at once: the runner's lateness from when the
				// delay would have begun until copy k arrived may have
				// held copy k back, and so shortened the gap.
				if late := j.lateness(g[k].Received.Add(-d), g[k-1].Received); gap+late >= d-j.tol.Early {
					return check.NoisyRunner("%s, but the runner's wake-ups came %s late in all before copy %d arrived: the client may have sent it that late", early, late.Round(time.Millisecond), k)
				}
				return check.Fail(want, early, g...)
			}
		}
		seen = append(seen, r.id+": "+copiesText(groups[i][slow]))
	}
	return check.Pass(want, strings.Join(seen, "; "))
}

// judgeHedgeCopies (CL-15): no attempt gets more copies than declared.
func judgeHedgeCopies(j *judging) check.Result {
	n := j.policy.copies()
	want := fmt.Sprintf("at most %d copies of an attempt", n)
	runs, groups := j.hedged()
	if len(runs) == 0 {
		return check.Inconclusive("no scenario with a slow answer ran")
	}
	most := 0
	for i, r := range runs {
		for _, g := range groups[i] {
			if len(g) > n {
				return check.Fail(want, fmt.Sprintf("%s: %d copies: %s", r.id, len(g), copiesText(g)), g...)
			}
			most = max(most, len(g))
		}
	}
	return check.Pass(want, fmt.Sprintf("at most %d copies", most))
}

// judgeHedgeCancel (CL-16): once a copy is answered, the client cancels the
// copies still outstanding.
func judgeHedgeCancel(j *judging) check.Result {
	want := fmt.Sprintf("once one copy of an attempt is answered, every other copy is cancelled within %s", j.tol.Late)
	runs, groups := j.hedged()
	var seen []string
	for i, r := range runs {
		for _, g := range groups[i] {
			won := -1
			for k, e := range g {
				if e.ClientGone.IsZero() && e.Status != 0 && (won < 0 || e.Finished.Before(g[won].Finished)) {
					won = k
				}
			}
			if won < 0 || len(g) < 2 {
				continue
			}
			for k, e := range g {
				end := e.Finished
				if !e.ClientGone.IsZero() {
					end = e.ClientGone
				}
				if late := end.Sub(g[won].Finished); k != won && late > j.tol.Late {
					return check.Fail(want, fmt.Sprintf("%s: copy %d ran on %s after copy %d was answered: %s", r.id, k+1, late.Round(time.Millisecond), won+1, copiesText(g)), g...)
				}
			}
			seen = append(seen, r.id+": "+copiesText(g))
		}
	}
	if len(seen) == 0 {
		return check.Inconclusive("no attempt had a copy answered while another was outstanding: no loser to judge")
	}
	return check.Pass(want, strings.Join(seen, "; "))
}

// copiesText renders an attempt's copies: when each started, relative to
// the first, and how it ended.
func copiesText(g []faults.Entry) string {
	parts := make([]string, len(g))
	for k, e := range g {
		end := fmt.Sprintf("answered %d", e.Status)
		if !e.ClientGone.IsZero() {
			end = fmt.Sprintf("cancelled at +%s", e.ClientGone.Sub(g[0].Received).Round(time.Millisecond))
		}
		parts[k] = fmt.Sprintf("copy %d at +%s, %s", k+1, e.Received.Sub(g[0].Received).Round(time.Millisecond), end)
	}
	return strings.Join(parts, "; ")
}

// attemptNo is e's number among r's attempts, from 1, as the script counts
// them.
func attemptNo(r *ScenarioRun, e faults.Entry) int {
	return slices.IndexFunc(r.Attempts, func(a faults.Entry) bool { return a.Seq == e.Seq }) + 1
}
