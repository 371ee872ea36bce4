package cli

import (
	"path/filepath"
	"strings"

	"github.com/resilcheck/resilcheck/reports"
)

// defaultReportDir is where certify writes its report unless told otherwise.
const defaultReportDir = "resilcheck-report"

// narrowedReportDir is the default report directory of a run narrowed to
// some checks or suites: a directory inside dir named after the selection,
// so that replaying one check never overwrites the full run's report.
// A full run writes to dir itself.
func narrowedReportDir(dir string, suiteNames, checkIDs []string) string {
	switch {
	case len(checkIDs) > 0:
		return filepath.Join(dir, "check-"+pathSafe(strings.ToUpper(strings.Join(checkIDs, "+"))))
	case len(suiteNames) > 0:
		return filepath.Join(dir, "suite-"+pathSafe(strings.Join(suiteNames, "+")))
	}
	return dir
}

// pathSafe keeps the characters a selection can legitimately hold, so a
// typed --check cannot walk the report elsewhere.
func pathSafe(s string) string {
	return reports.SafeName(s, "+-_.")
}
