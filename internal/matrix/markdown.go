package matrix

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"

	"github.com/resilcheck/resilcheck/reports"
)

// WriteMarkdown writes m as GitHub-flavoured Markdown: a summary table, a
// table per contract (rows are the targets it judged, each cell a sign
// linking to the run's evidence), then every disagreement and unstable
// cell with its reasons.
func WriteMarkdown(w io.Writer, m *Matrix) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "# Resilience matrix\n\n%s.\n\n", mdText(m.Verdict()))
	fmt.Fprintf(b, "Seed %d, %d %s of each target, resilcheck %s, %s.\n\n", m.Seed, m.Runs, plural(m.Runs, "run"), mdText(orDash(m.Version)), m.Took.Std().Round(100*time.Millisecond))
	fmt.Fprintf(b, "| Target | Kind | Versions | Seeds | ✓ pass | ✗ fail | ? inconclusive | – not applicable | disagree |\n")
	fmt.Fprintf(b, "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |\n")
	for _, r := range m.Rows {
		name := mdText(r.Name)
		if len(r.Reports) > 0 {
			name = fmt.Sprintf("[%s](%s/report.html)", name, href(r.Reports[0]))
		}
		if r.Error != "" {
			fmt.Fprintf(b, "| %s | %s | %s | %s | not certified: %s |||||\n", name, r.Kind, mdText(versions(r.Versions)), seeds(r.Seeds), mdText(r.Error))
			continue
		}
		n := r.counts()
		fmt.Fprintf(b, "| %s | %s | %s | %s | %d | %d | %d | %d | %d |\n", name, r.Kind, mdText(versions(r.Versions)), seeds(r.Seeds),
			n[reports.StatusPass], n[reports.StatusFail], n[reports.StatusInconclusive], n[reports.StatusNotApplicable], r.disagreements())
	}
	for _, g := range m.groups() {
		fmt.Fprintf(b, "\n## %s\n\n| Target |", mdText(g.Suite))
		for _, c := range g.Columns {
			fmt.Fprintf(b, " %s |", mdText(c.ID))
		}
		b.WriteString("\n| --- |" + strings.Repeat(" :-: |", len(g.Columns)) + "\n")
		for _, r := range m.Rows {
			if !r.judges(g) {
				continue
			}
			fmt.Fprintf(b, "| %s |", mdText(r.Name))
			for _, col := range g.Columns {
				c, ok := r.Cells[col.ID]
				if !ok {
					b.WriteString(" |")
					continue
				}
				sign := mark(c.Status)
				if c.Unstable {
					sign += "~"
				}
				if !c.Agrees {
					sign = "**" + sign + "≠**"
				}
				fmt.Fprintf(b, " [%s](%s) |", sign, c.Link)
			}
			b.WriteString("\n")
		}
	}
	mdNotes(b, m, "Disagreements", func(c Cell) bool { return !c.Agrees })
	mdNotes(b, m, "Unstable cells", func(c Cell) bool { return c.Unstable })
	b.WriteString("\n✓ pass, ✗ fail, ? inconclusive, – not applicable; **≠** the verdict disagrees with the target's expectations, read from its code; ~ its runs did not end alike. Each sign links to the evidence.\n")
	return b.Flush()
}

// mdNotes lists the cells keep selects, with their reasons, under title.
func mdNotes(b *bufio.Writer, m *Matrix, title string, keep func(Cell) bool) {
	first := true
	for _, r := range m.Rows {
		for _, col := range m.Columns {
			c, ok := r.Cells[col.ID]
			if !ok || !keep(c) {
				continue
			}
			if first {
				fmt.Fprintf(b, "\n## %s\n\n", title)
				first = false
			}
			fmt.Fprintf(b, "- **%s** [%s](%s)\n", mdText(r.Name), mdText(c.note(col.ID)), c.Link)
		}
	}
}

// judges says whether r has a cell in g.
func (r Row) judges(g group) bool {
	for _, c := range g.Columns {
		if _, ok := r.Cells[c.ID]; ok {
			return true
		}
	}
	return false
}

// mdEscaper escapes what Markdown or a table would read as syntax.
var mdEscaper = strings.NewReplacer(`\`, `\\`, "|", `\|`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`,
	"&", "&amp;", "<", "&lt;", ">", "&gt;", "#", `\#`, "~", `\~`, "$", `\$`)

// mdText is s on one line, its controls dropped and its syntax escaped.
func mdText(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		case unicode.IsControl(r):
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	return mdEscaper.Replace(s)
}

func orDash(s string) string {
	if s == "" {
		return "(unversioned)"
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
