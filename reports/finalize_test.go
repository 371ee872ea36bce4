package reports

import (
	"slices"
	"testing"
)

func TestReport_Finalize(t *testing.T) {
	t.Parallel()
	chk := func(suite, id string, st Status) Check { return Check{ID: id, Suite: suite, Status: st} }
	cases := []struct {
		name        string
		in          Report
		wantVerdict Verdict
		wantOrder   []string // suite/ID after sorting
		wantSuites  []SuiteSummary
	}{
		{name: "empty run passes", in: Report{}, wantVerdict: VerdictPass, wantSuites: []SuiteSummary{}},
		{name: "not applicable alone passes",
			in:          Report{Checks: []Check{chk("a", "X-1", StatusNotApplicable), chk("a", "X-2", StatusPass)}},
			wantVerdict: VerdictPass, wantOrder: []string{"a/X-1", "a/X-2"},
			wantSuites: []SuiteSummary{{Name: "a", Pass: 1, NotApplicable: 1}}},
		{name: "inconclusive beats pass",
			in:          Report{Checks: []Check{chk("a", "X-1", StatusInconclusive), chk("a", "X-2", StatusPass)}},
			wantVerdict: VerdictInconclusive, wantOrder: []string{"a/X-1", "a/X-2"},
			wantSuites: []SuiteSummary{{Name: "a", Pass: 1, Inconclusive: 1}}},
		{name: "fail beats inconclusive",
			in:          Report{Checks: []Check{chk("a", "X-1", StatusInconclusive), chk("a", "X-2", StatusFail)}},
			wantVerdict: VerdictFail, wantOrder: []string{"a/X-1", "a/X-2"},
			wantSuites: []SuiteSummary{{Name: "a", Fail: 1, Inconclusive: 1}}},
		{name: "interrupted beats fail",
			in:          Report{Interrupted: "signal", Checks: []Check{chk("a", "X-1", StatusFail)}},
			wantVerdict: VerdictInterrupted, wantOrder: []string{"a/X-1"},
			wantSuites: []SuiteSummary{{Name: "a", Fail: 1}}},
		{name: "unknown status is never a pass",
			in:          Report{Checks: []Check{chk("a", "X-1", "weird")}},
			wantVerdict: VerdictInconclusive, wantOrder: []string{"a/X-1"},
			wantSuites: []SuiteSummary{{Name: "a"}}},
		{name: "listed suite order, then first appearance; natural IDs",
			in: Report{
				Suites: []SuiteSummary{{Name: "idem", Pass: 99}, {Name: "empty"}},
				Checks: []Check{chk("rl", "RL-2", StatusPass), chk("idem", "IK-10", StatusPass),
					chk("idem", "IK-9", StatusPass), chk("idem", "IK-09", StatusFail), chk("other", "A-1", StatusPass)}},
			wantVerdict: VerdictFail,
			wantOrder:   []string{"idem/IK-09", "idem/IK-9", "idem/IK-10", "rl/RL-2", "other/A-1"},
			wantSuites:  []SuiteSummary{{Name: "idem", Pass: 2, Fail: 1}, {Name: "empty"}, {Name: "rl", Pass: 1}, {Name: "other", Pass: 1}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := c.in
			r.Checks = slices.Clone(c.in.Checks)
			r.Finalize()
			var order []string
			for _, ch := range r.Checks {
				order = append(order, ch.Suite+"/"+ch.ID)
			}
			if r.Schema != Schema || r.Verdict != c.wantVerdict || !slices.Equal(order, c.wantOrder) || !slices.Equal(r.Suites, c.wantSuites) {
				t.Errorf("Finalize() = schema %q verdict %q order %v suites %+v; want %q %v %+v",
					r.Schema, r.Verdict, order, r.Suites, c.wantVerdict, c.wantOrder, c.wantSuites)
			}
			again := r
			again.Checks = slices.Clone(r.Checks)
			again.Finalize()
			if again.Verdict != r.Verdict || !slices.Equal(again.Suites, r.Suites) || !slices.EqualFunc(again.Checks, r.Checks, func(a, b Check) bool { return a.ID == b.ID }) {
				t.Errorf("Finalize is not idempotent: %+v then %+v", r.Suites, again.Suites)
			}
		})
	}
}

func TestCompareIDs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		a, b string
		want int // sign
	}{
		{"IK-2", "IK-10", -1},
		{"IK-10", "IK-2", 1},
		{"IK-07", "IK-7", -1}, // equal numbers: the textual tie-break keeps the order total
		{"IK-7", "IK-7", 0},
		{"HS-1", "IK-1", -1},
		{"IK", "IK-1", -1},
		{"", "A", -1},
		{"IK-PROP", "IK-10", 1},
	}
	for _, c := range cases {
		got := CompareIDs(c.a, c.b)
		if sign(got) != c.want {
			t.Errorf("CompareIDs(%q, %q) = %d; want sign %d", c.a, c.b, got, c.want)
		}
	}
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}
