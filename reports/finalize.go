package reports

import (
	"slices"
	"strings"
)

// Finalize makes r ready to write: it sets Schema, sorts Checks stably by
// suite order then ID, recomputes Suites and derives Verdict. Suite order is
// the order of r.Suites as the caller listed them, then any other suite in
// order of first appearance among the checks. Finalize is idempotent.
func (r *Report) Finalize() {
	r.Schema = Schema
	order := r.suiteOrder()
	slices.SortStableFunc(r.Checks, func(a, b Check) int {
		if c := order[a.Suite] - order[b.Suite]; c != 0 {
			return c
		}
		return CompareIDs(a.ID, b.ID)
	})
	r.Suites = summarize(r.Checks, r.Suites)
	r.Verdict = r.verdict()
}

// suiteOrder ranks suite names: those listed in r.Suites first, then new
// ones as the checks name them.
func (r *Report) suiteOrder() map[string]int {
	order := make(map[string]int, len(r.Suites))
	add := func(name string) {
		if _, ok := order[name]; !ok {
			order[name] = len(order)
		}
	}
	for _, s := range r.Suites {
		add(s.Name)
	}
	for _, c := range r.Checks {
		add(c.Suite)
	}
	return order
}

// summarize counts sorted checks per suite, keeping suites listed in prev
// (even with no checks) in their order.
func summarize(checks []Check, prev []SuiteSummary) []SuiteSummary {
	out := make([]SuiteSummary, 0, len(prev))
	index := make(map[string]int, len(prev))
	for _, s := range prev {
		if _, ok := index[s.Name]; !ok {
			index[s.Name] = len(out)
			out = append(out, SuiteSummary{Name: s.Name})
		}
	}
	for _, c := range checks {
		i, ok := index[c.Suite]
		if !ok {
			i = len(out)
			index[c.Suite] = i
			out = append(out, SuiteSummary{Name: c.Suite})
		}
		out[i].add(c.Status)
	}
	return out
}

func (s *SuiteSummary) add(st Status) {
	switch st {
	case StatusPass:
		s.Pass++
	case StatusFail:
		s.Fail++
	case StatusInconclusive:
		s.Inconclusive++
	case StatusNotApplicable:
		s.NotApplicable++
	}
}

// Totals sums the counts of all checks in r, under the name "total".
func (r *Report) Totals() SuiteSummary {
	t := SuiteSummary{Name: "total"}
	for _, c := range r.Checks {
		t.add(c.Status)
	}
	return t
}

// verdict applies the precedence interrupted > fail > inconclusive > pass
// to the checks the gate counts (all of them without a gate).
// A check with a status outside the four known ones counts as inconclusive,
// so an unknown result can never read as a pass.
func (r *Report) verdict() Verdict {
	if r.Interrupted != "" {
		return VerdictInterrupted
	}
	v := VerdictPass
	if r.Aborted != "" {
		v = VerdictInconclusive
	}
	for _, c := range r.Checks {
		if !c.counts() {
			continue
		}
		switch c.Status {
		case StatusFail:
			return VerdictFail
		case StatusPass, StatusNotApplicable:
		default:
			v = VerdictInconclusive
		}
	}
	return v
}

// CompareIDs orders check IDs naturally, so "IK-2" sorts before "IK-10".
// It returns a negative number, zero or a positive number like strings.Compare.
func CompareIDs(a, b string) int {
	for a != "" && b != "" {
		ca, ra := idChunk(a)
		cb, rb := idChunk(b)
		if c := compareChunk(ca, cb); c != 0 {
			return c
		}
		a, b = ra, rb
	}
	return strings.Compare(a, b)
}

// idChunk splits s into its leading run of digits or of non-digits, and the rest.
func idChunk(s string) (chunk, rest string) {
	digit := isDigit(s[0])
	i := 1
	for i < len(s) && isDigit(s[i]) == digit {
		i++
	}
	return s[:i], s[i:]
}

func compareChunk(a, b string) int {
	if isDigit(a[0]) && isDigit(b[0]) {
		ta, tb := strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
		if len(ta) != len(tb) {
			return len(ta) - len(tb)
		}
		if c := strings.Compare(ta, tb); c != 0 {
			return c
		}
	}
	return strings.Compare(a, b)
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }
