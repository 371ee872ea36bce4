package check

import (
	"fmt"

	"github.com/resilcheck/resilcheck/reports"
)

// Tolerances lists the thresholds the run judges by: the harness's own,
// then each of its suites', with the values h's configuration gives them,
// so a reader of the report can weigh a verdict.
func (h *Harness) Tolerances() []reports.Tolerance {
	out := []reports.Tolerance{
		{Name: "time bound slack", Value: h.Slack().String(),
			Why: "bounds are one-sided: no earlier than the bound minus this slack, which absorbs a busy runner's scheduling"},
		{Name: "runner noise", Value: h.Noise.String(),
			Why: fmt.Sprintf("measured before the checks; every time slack is at least %d× the worse of the two, and above %s the timed checks are inconclusive (noisy runner)", noiseFactor, maxNoiseSlack)},
		{Name: "heal streak", Value: h.Policy.Retry.StreakText(),
			Why: "before every dependency-fault case: Resilience4j's 10 half-open calls, or what refills a gRFC A6 retry throttle (example max_tokens 10) at the declared budget ratio"},
	}
	for _, s := range h.Suites {
		if s.Tolerances != nil {
			out = append(out, s.Tolerances(h)...)
		}
	}
	return out
}
