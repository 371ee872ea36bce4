package reports

import (
	"fmt"
	"slices"
	"strings"
)

// Word is the status as every format shows it to a reader: "pass", "fail",
// "inconclusive" or "not applicable". The JSON keeps the value itself
// ("not-applicable"); an unknown status is shown as it is.
func (s Status) Word() string {
	if s == StatusNotApplicable {
		return "not applicable"
	}
	return string(s)
}

// statusOrder ranks statuses for reading: failures first, then what could not
// be judged, then what does not apply, passes last. An unknown status ranks
// with inconclusive, as the verdict counts it.
var statusOrder = map[Status]int{StatusFail: 0, StatusInconclusive: 1, StatusNotApplicable: 2, StatusPass: 3}

func statusRank(s Status) int {
	if r, ok := statusOrder[s]; ok {
		return r
	}
	return statusOrder[StatusInconclusive]
}

// failuresFirst returns the checks ordered by status rank, keeping the
// report's suite-then-ID order within a status; checks is not modified.
func failuresFirst(checks []Check) []Check {
	out := slices.Clone(checks)
	slices.SortStableFunc(out, func(a, b Check) int { return statusRank(a.Status) - statusRank(b.Status) })
	return out
}

// counts renders a summary as "3 pass, 1 fail, 1 inconclusive, 1 not
// applicable", the status words every format uses.
func counts(s SuiteSummary) string {
	return fmt.Sprintf("%d %s, %d %s, %d %s, %d %s",
		s.Pass, StatusPass.Word(), s.Fail, StatusFail.Word(),
		s.Inconclusive, StatusInconclusive.Word(), s.NotApplicable, StatusNotApplicable.Word())
}

// verdictWord is the verdict in capitals, as the console's last line shows it.
func verdictWord(v Verdict) string { return strings.ToUpper(string(v)) }
