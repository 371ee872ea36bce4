package target

import (
	"slices"
	"testing"

	"github.com/resilcheck/resilcheck/suites"
)

// unproven lists the checks no expectation yet shows failing: no reference
// defect makes them fail, and no foreign target with an expectation does.
// Each is a debt (DESIGN: "a check that cannot fail is a defect"); the note
// says what shows it failing today, if anything. Remove an entry when a
// defect or foreign-target expectation starts to name the check.
var unproven = map[string]string{
	"IK-03":  "no defect charges twice on a first request",
	"IK-05":  "no defect accepts a request without a key",
	"IK-14":  "no defect answers malformed keys with 5xx",
	"BO-02":  "only suites.TestBackoffJudges (recorded samples); the reference declares full jitter",
	"BO-03":  "only suites.TestBackoffJudges (recorded samples); the reference declares full jitter",
	"BO-04":  "only suites.TestBackoffJudges (recorded samples) and TestExponentialFake (a fake service); the reference declares full jitter",
	"HS-09":  "only suites.TestRetryAfter_catchesUnfitTargets (a fake service)",
	"HS-10":  "only suites.TestRetryAfter_catchesUnfitTargets (a fake service)",
	"RL-09":  "only suites.TestRetryAfter_catchesUnfitTargets (a fake service)",
	"HS-18":  "only suites.TestDeadlines_catchAnIgnorantTarget (a fake service)",
	"HS-18b": "only suites.TestDeadlines_catchAnIgnorantTarget (a fake service)",
	"DL-06b": "only suites.TestDeadlines_catchAnIgnorantTarget (a fake service)",
	"HS-05":  "no defect sends an empty 429",
	"RL-01q": "only suites.TestJudgeWindows (recorded admissions)",
	"RL-02":  "only headers' parser tests",
	"RL-03":  "only headers' parser tests",
	"RL-04":  "only headers' parser tests",
	"RL-08":  "no defect changes its policy",
	"RL-09b": "no defect keeps refusing after the reset",
	"RL-18":  "no defect advertises r/t far above q/w",
	"RL-20":  "no defect shares a quota across tenants",
	"RL-22":  "no defect sends malformed X-RateLimit-* fields",
	"RL-24":  "only suites.TestDisagreement (recorded fields)",
}

// TestChecks_provenFailing holds every registered check to an expectation
// that shows it failing (a defect's Must list), or to an entry in unproven.
func TestChecks_provenFailing(t *testing.T) {
	t.Parallel()
	proven := map[string]bool{}
	for _, e := range Matrix() {
		for _, id := range e.Must {
			proven[id] = true
		}
	}
	var ids []string
	for _, e := range suites.Catalogue() {
		ids = append(ids, e.ID)
		_, listed := unproven[e.ID]
		switch {
		case proven[e.ID] && listed:
			t.Errorf("check %s is now in a defect's Must list: remove it from unproven", e.ID)
		case !proven[e.ID] && !listed:
			t.Errorf("check %s fails in no expectation: add the defect (or foreign target) that catches it to the matrix", e.ID)
		}
	}
	for id := range unproven {
		if !slices.Contains(ids, id) {
			t.Errorf("unproven names %s, which is not a registered check", id)
		}
	}
}
