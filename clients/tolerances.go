package clients

import (
	"fmt"

	"github.com/resilcheck/resilcheck/reports"
)

// tolerances lists the thresholds the client suite judges by.
func tolerances(p Policy, t Tolerance) []reports.Tolerance {
	return []reports.Tolerance{
		{Name: "early slack", Value: t.Early.String(),
			Why: "CL-02: no attempt earlier than a Retry-After bound less this"},
		{Name: "backoff growth", Value: fmt.Sprintf("×%.1f", backoffGrowth),
			Why: "CL-07: the longest later median wait without Retry-After is at least this times the first"},
		{Name: "jitter spread", Value: fmt.Sprintf("%.0f %% of the median", dispersalShare*100),
			Why: "CL-13: the spread of one wait over the clients failing together"},
		{Name: "shortest judged wait", Value: minJudgedWait.String(),
			Why: "CL-07, CL-13: shorter waits are inconclusive, a shared runner's own delays being of that order"},
		{Name: "late slack", Value: t.Late.String(),
			Why: "CL-03, CL-08: an operation ends by the declared deadline plus this, which absorbs starting a client process"},
		{Name: "client policy", Value: p.String(),
			Why: "CL-01, CL-03, CL-08 and the expected outcome of each scenario come from what the client declares"},
		{Name: "harness limit per call", Value: fmt.Sprintf("deadline + %s, or %s without one", Grace, Limit),
			Why: "a call still running then is cut: a deadline failure, and no report to judge"},
	}
}
