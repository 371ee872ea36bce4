// Package keepfailed keeps the report of a test's failed certification
// where RESILCHECK_KEEP_FAILED says, evidence and all, and its journal
// when the test held on to one: a timing verdict that went wrong on a busy
// CI runner is judged from its exchanges, which a test's log is too short
// to hold, and a report's evidence is only a sample of them.
package keepfailed

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/resilcheck/resilcheck/faults"
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

// Journal is a run's journal set aside until its test is judged: Hold
// writes it under the kept directory at once, so a test that certifies
// many times need not keep every journal in memory, and Keep or Drop
// settles it. The zero Journal (no directory named, or nothing to hold)
// does nothing.
type Journal struct{ path string }

// Hold writes j's entries, one JSON object per line, under the directory
// RESILCHECK_KEEP_FAILED names, as name (made safe for a file name) with
// the seed; it holds nothing when the variable is unset, j is nil, or the
// write fails (a journal kept for diagnosis never fails a test).
func Hold(name string, seed uint64, j *faults.Journal) Journal {
	dir := os.Getenv("RESILCHECK_KEEP_FAILED")
	if dir == "" || j == nil {
		return Journal{}
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-seed%d.journal.jsonl", reports.SafeName(name, "-"), seed))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Journal{}
	}
	if err := reports.WriteFileAtomic(path, func(w io.Writer) error { return j.WriteJSONLines(w) }); err != nil {
		_ = os.Remove(path)
		return Journal{}
	}
	return Journal{path: path}
}

// Keep logs where the held journal lies, for a test that failed.
func (j Journal) Keep(t testing.TB) {
	t.Helper()
	if j.path != "" {
		t.Logf("journal kept at %s", j.path)
	}
}

// Drop removes the held journal of a test that passed.
func (j Journal) Drop() {
	if j.path != "" {
		_ = os.Remove(j.path)
	}
}
