package clients

import (
	"fmt"

	"github.com/resilcheck/resilcheck/reports"
)

// tolerances lists the thresholds the client suite judges by.
func tolerances(p Policy, t Tolerance, l limits) []reports.Tolerance {
	return []reports.Tolerance{
		{Name: "early slack", Value: t.Early.String(),
			Why: "CL-02: no attempt earlier than a Retry-After bound less this"},
		{Name: "evidence level", Value: fmt.Sprintf("p < %g", evidenceLevel),
			Why: "CL-07, CL-13: the chance of failing a client that keeps the rule, and of passing one that breaks it; weaker evidence is inconclusive"},
		{Name: "backoff growth", Value: fmt.Sprintf("×%.1f", backoffGrowth),
			Why: "CL-07: the least growth presumed of a correct backoff; later waits significantly shorter than this times the first fail"},
		{Name: "runner noise on a wait", Value: waitNoise.String(),
			Why: "CL-07: added to the later waits before they are compared with the first"},
		{Name: "smallest jitter passed", Value: fmt.Sprintf("±%.0f %%, uniform", smallestJitter*100),
			Why: "CL-13: the spread such jitter reaches in the scenario's clients with p ≥ 0.99 passes"},
		{Name: "lockstep spread", Value: fmt.Sprintf("under %.0f %% of the median", lockstepShare*100),
			Why: "CL-13: what a runner's own delays spread identical waits by (measured 0–3 ms on 2–4 s); less fails"},
		{Name: "narrow jitter", Value: fmt.Sprintf("±%.1f %%: a spread under %.0f %% of the median", narrowJitter*100, narrowSpread*100),
			Why: fmt.Sprintf("CL-13: jitter this narrow leaves a wave of retries in one burst; with twelve clients or more, whose ±%.0f %% jitter spreads wider with p ≥ %g, a spread under its width plus the runner's fails", smallestJitter*100, 1-evidenceLevel)},
		{Name: "shortest judged wait", Value: minJudgedWait.String(),
			Why: "CL-07, CL-13: shorter waits are inconclusive, a shared runner's own delays being of that order"},
		{Name: "late slack", Value: t.Late.String(),
			Why: "CL-03, CL-08, CL-12: an operation ends by the declared deadline plus this, timed from its first attempt, which absorbs a process's exit and the runner's delays"},
		{Name: "start-up allowance", Value: t.StartUp.String(),
			Why: "CL-03, CL-08 and the harness's limit: a call's time to its first attempt (starting a client process), up to this, is not counted against its deadline; each check reports the start-ups measured"},
		{Name: "client policy", Value: p.String(),
			Why: "CL-01, CL-03, CL-08 and the expected outcome of each scenario come from what the client declares"},
		{Name: "harness limit per call", Value: l.String(),
			Why: "a call still running then is cut: a deadline failure where a deadline is declared; otherwise the checks that judge how it ended are inconclusive, naming the cut"},
	}
}
