package expect

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/resilcheck/resilcheck/reports"
)

var ids = []string{"IK-03", "IK-05", "RL-08"}

func write(t *testing.T, dir, body string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, FileName)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoad_rejects(t *testing.T) {
	for name, body := range map[string]string{
		"unknown check":    "target: x\nvariants:\n  - name: a\n    must_fail: {XX-01: why}\n",
		"no why":           "target: x\nvariants:\n  - name: a\n    must_fail: {IK-03: ''}\n",
		"two verdicts":     "target: x\nvariants:\n  - name: a\n    must_fail: {IK-03: a}\n    may_fail: {IK-03: b}\n",
		"not run":          "target: x\nvariants:\n  - name: a\n    run: [IK-05]\n    must_fail: {IK-03: a}\n",
		"repeated name":    "target: x\nvariants:\n  - name: a\n  - name: a\n",
		"unknown field":    "target: x\nvariants:\n  - name: a\n    must: {IK-03: a}\n",
		"no target":        "variants:\n  - name: a\n",
		"runs a non-check": "target: x\nvariants:\n  - name: a\n    run: [XX-01]\n",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Load(write(t, t.TempDir(), body), ids); err == nil {
				t.Fatal("loaded")
			}
		})
	}
}

func TestVariant_Allowed(t *testing.T) {
	f, err := Load(write(t, t.TempDir(), `target: x
groups: {all: &all [IK-03, IK-05, RL-08, RL-09]}
variants:
  - name: a
    run: *all
    must_fail: {IK-03: one}
    may_fail: {IK-05: two}
    not_applicable: {RL-08: three}
    may_decline: {RL-09: four}
`), append(slices.Clone(ids), "RL-09"))
	if err != nil {
		t.Fatal(err)
	}
	v := f.Variants[0]
	for id, want := range map[string][]reports.Status{
		"IK-03": {reports.StatusFail},
		"IK-05": {reports.StatusPass, reports.StatusFail},
		"RL-08": {reports.StatusNotApplicable},
		"RL-09": {reports.StatusPass, reports.StatusInconclusive},
		"XX-09": {reports.StatusPass},
	} {
		if got := v.Allowed(id); !slices.Equal(got, want) {
			t.Errorf("Allowed(%s) = %v, want %v", id, got, want)
		}
	}
	if v.WhyOf("RL-08") != "three" || len(v.Run) != 4 {
		t.Errorf("WhyOf(RL-08) = %q, run %v", v.WhyOf("RL-08"), v.Run)
	}
	if got := MustFail([]*File{f}); !slices.Equal(got["IK-03"], []string{"x/a"}) || len(got) != 1 {
		t.Errorf("MustFail = %v", got)
	}
}

// TestFind_skipsOtherFormats: a file without variants (the foreign zoo's
// per-check verdicts) is returned apart, not read as this format.
func TestFind_skipsOtherFormats(t *testing.T) {
	root := t.TempDir()
	ours := write(t, filepath.Join(root, "a"), "target: a\nvariants:\n  - name: green\n")
	theirs := write(t, filepath.Join(root, "b", "c"), "service: c\nchecks: {}\n")
	write(t, filepath.Join(root, "node_modules", "d"), "target: d\nvariants: []\n")
	files, other, err := Find(root)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(files, []string{ours}) || !slices.Equal(other, []string{theirs}) {
		t.Errorf("Find = %v, %v; want [%s], [%s]", files, other, ours, theirs)
	}
}
