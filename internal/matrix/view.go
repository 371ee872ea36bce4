package matrix

import (
	"cmp"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/resilcheck/resilcheck/reports"
)

// group is the columns of one contract, for the renderers' headers.
type group struct {
	Suite   string
	Columns []Column
}

// groups splits m's columns by contract, in order.
func (m *Matrix) groups() []group {
	var out []group
	for _, c := range m.Columns {
		if n := len(out); n > 0 && out[n-1].Suite == c.Suite {
			out[n-1].Columns = append(out[n-1].Columns, c)
			continue
		}
		out = append(out, group{Suite: c.Suite, Columns: []Column{c}})
	}
	return out
}

// mark is a verdict's one-character sign in a cell.
func mark(s reports.Status) string {
	switch s {
	case reports.StatusPass:
		return "✓"
	case reports.StatusFail:
		return "✗"
	case reports.StatusInconclusive:
		return "?"
	case reports.StatusNotApplicable:
		return "–"
	}
	return "·"
}

// statuses renders a list of statuses as words: "pass or fail".
func statuses(ss []reports.Status) string {
	words := make([]string, len(ss))
	for i, s := range ss {
		words[i] = string(s)
		if s == "" {
			words[i] = "missing"
		}
	}
	return strings.Join(words, " or ")
}

// versions renders a row's versions, sorted by component.
func versions(v map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(v)) {
		parts = append(parts, k+" "+v[k])
	}
	return strings.Join(parts, ", ")
}

// counts tallies a row's first-run verdicts.
func (r Row) counts() map[reports.Status]int {
	n := map[reports.Status]int{}
	for _, c := range r.Cells {
		n[c.Status]++
	}
	return n
}

// disagreements counts a row's cells that did not end as expected.
func (r Row) disagreements() int {
	n := 0
	for _, c := range r.Cells {
		if !c.Agrees {
			n++
		}
	}
	return n
}

// note explains a cell in a sentence: what ran, what was expected, why.
func (c Cell) note(id string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", id, cmp.Or(string(c.Status), "missing"))
	if c.Tier != "" {
		fmt.Fprintf(&b, " at %s", c.Tier)
	}
	if c.Unstable {
		words := make([]string, len(c.Runs))
		for i, s := range c.Runs {
			words[i] = cmp.Or(string(s), "missing")
		}
		fmt.Fprintf(&b, " (unstable: its runs ended %s)", strings.Join(words, ", "))
	}
	fmt.Fprintf(&b, "; expected %s", statuses(c.Expected))
	if c.Why != "" {
		fmt.Fprintf(&b, ": %s", c.Why)
	}
	if c.Observed != "" {
		fmt.Fprintf(&b, "; observed: %s", c.Observed)
	}
	return b.String()
}

// Verdict is the matrix's one-line outcome.
func (m *Matrix) Verdict() string {
	cells, rows := m.Disagreements()
	n := 0
	for _, r := range m.Rows {
		n += len(r.Cells)
	}
	s := fmt.Sprintf("%d %s, %d cells: %d disagree with their expectations, %d unstable", len(m.Rows), plural(len(m.Rows), "target"), n, cells, m.Unstable())
	if rows > 0 {
		s += fmt.Sprintf(", %d %s not certified", rows, plural(rows, "target"))
	}
	return s
}

// href is the URL of a slash-separated path relative to the output
// directory, each segment escaped.
func href(rel string) string {
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// seeds renders a row's run seeds: one, "(each run)", when they are all
// alike.
func seeds(ss []uint64) string {
	parts := make([]string, len(ss))
	alike := true
	for i, s := range ss {
		parts[i] = strconv.FormatUint(s, 10)
		alike = alike && s == ss[0]
	}
	if alike && len(ss) > 1 {
		return parts[0] + " (each run)"
	}
	return strings.Join(parts, ", ")
}
