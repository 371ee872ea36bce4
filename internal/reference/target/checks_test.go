package target

import (
	"slices"
	"testing"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/check/builtin"
	"github.com/resilcheck/resilcheck/expect"
	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

// unproven lists the checks no expectation yet shows failing: no reference
// defect makes them fail, and no variant of an example target's
// expectations.yaml must fail them. Each is a debt (a check that cannot
// fail is a defect); the note says what shows it failing today, if
// anything. Remove an entry when a defect or an example variant names it.
var unproven = map[string]string{}

// examplesDir holds the example targets whose expectations.yaml files
// (package expect) may prove checks failing.
const examplesDir = "../../../examples"

// TestChecks_provenFailing holds every registered check to an expectation
// that shows it failing (a defect's Must list, or a must_fail of a variant
// in an example target's expectations.yaml), or to an entry in unproven.
func TestChecks_provenFailing(t *testing.T) {
	t.Parallel()
	var ids []string
	for _, e := range check.Catalogue(builtin.Catalogued()) {
		ids = append(ids, e.ID)
	}
	proven := map[string][]string{}
	for _, m := range []map[defect.Name]Expectation{Matrix(), ClientMatrix()} {
		for d, e := range m {
			for _, id := range e.Must {
				proven[id] = append(proven[id], "defect "+string(d))
			}
		}
	}
	paths, other, err := expect.Find(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no expectations file under %s", examplesDir)
	}
	var files []*expect.File
	for _, p := range paths {
		f, err := expect.Load(p, ids)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	for id, by := range expect.MustFail(files) {
		proven[id] = append(proven[id], by...)
	}
	t.Logf("expectations read: %v; in another format, not counted: %v", paths, other)
	for _, id := range ids {
		reason, listed := unproven[id]
		switch {
		case len(proven[id]) > 0 && listed:
			t.Errorf("check %s is shown failing by %v: remove it from unproven (%q)", id, proven[id], reason)
		case len(proven[id]) == 0 && !listed:
			t.Errorf("check %s fails in no expectation: add the defect or example variant that catches it", id)
		}
	}
	for id := range unproven {
		if !slices.Contains(ids, id) {
			t.Errorf("unproven names %s, which is not a registered check", id)
		}
	}
}
