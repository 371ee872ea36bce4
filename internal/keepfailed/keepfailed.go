// Package keepfailed keeps the report of a test's failed certification
// where RESILCHECK_KEEP_FAILED says, evidence and all: a timing verdict
// that went wrong on a busy CI runner is judged from its exchanges, which
// a test's log is too short to hold.
package keepfailed

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/resilcheck/resilcheck/reports"
)

// Report writes rep as JSON into the directory RESILCHECK_KEEP_FAILED
// names, under t's name and rep's seed, and logs where; it does nothing
// when the variable is unset or rep is nil.
func Report(t testing.TB, rep *reports.Report) {
	t.Helper()
	dir := os.Getenv("RESILCHECK_KEEP_FAILED")
	if dir == "" || rep == nil {
		return
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-seed%d.json", reports.SafeName(t.Name(), "-"), rep.Seed))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Logf("keeping the report: %v", err)
		return
	}
	if err := reports.WriteFileAtomic(path, func(w io.Writer) error { return reports.WriteJSON(w, rep) }); err != nil {
		t.Logf("keeping the report: %v", err)
		return
	}
	t.Logf("report kept at %s", path)
}
