package reports

import (
	"fmt"
	"html"
	"io"
	"strings"
)

var _ Writer = WriteMarkdown

var (
	statusEmoji  = map[Status]string{StatusPass: "✅", StatusFail: "❌", StatusInconclusive: "⚠️", StatusNotApplicable: "➖"}
	verdictEmoji = map[Verdict]string{VerdictPass: "✅", VerdictFail: "❌", VerdictInconclusive: "⚠️", VerdictInterrupted: "⏹️"}
)

// StepSummaryLimit is the most a GitHub Actions job step may write to
// $GITHUB_STEP_SUMMARY (1 MiB). WriteMarkdown keeps summary.md within it
// less StepSummaryMargin, the room the action's own lines take
// (.github/actions/certify.sh cuts anything longer, mid-structure).
const (
	StepSummaryLimit  = 1 << 20
	StepSummaryMargin = 4 << 10
)

// WriteMarkdown writes GitHub-flavoured Markdown for $GITHUB_STEP_SUMMARY:
// a heading with the verdict, the checks that did not pass (failures first,
// each failure's details open), then the passing checks in a collapsed
// section. User text is escaped. It fits StepSummaryLimit less
// StepSummaryMargin: see WriteMarkdownLimit.
func WriteMarkdown(w io.Writer, r *Report) error {
	return WriteMarkdownLimit(w, r, StepSummaryLimit-StepSummaryMargin)
}

func mdRender(w io.Writer, r *Report, trim mdTrim) {
	fmt.Fprintf(w, "## %s resilcheck: %s\n\n", verdictEmoji[r.Verdict], mdText(string(r.Verdict)))
	fmt.Fprintf(w, "Target %s (%s), seed %s, %s%s, took %s.\n\n",
		mdCode(r.Target.Name), mdText(r.Target.Kind), mdCode(fmt.Sprint(r.Seed)), counts(r.Totals()), mdText(excusedWords(r)), short(r.Duration))
	if trim > mdWhole {
		fmt.Fprintf(w, "> **Trimmed** to fit GitHub's %d KiB step summary: %s are left out here; report.html and report.json have them.\n\n",
			StepSummaryLimit>>10, mdTrimNotes[trim])
	}
	if r.Interrupted != "" {
		fmt.Fprintf(w, "> **Interrupted:** %s. This is a partial report.\n\n", mdText(oneLine(r.Interrupted)))
	}
	mdAborted(w, r)
	mdLogs(w, r)
	mdTLS(w, r)
	mdGate(w, r)
	if r.Reproduce != "" {
		fmt.Fprintf(w, "Reproduce: %s\n\n", mdCode(r.Reproduce))
	}
	var attention, passing []Check
	for _, c := range failuresFirst(r.Checks) {
		if c.Status == StatusPass {
			passing = append(passing, c)
		} else {
			attention = append(attention, c)
		}
	}
	if len(attention) > 0 {
		mdTable(w, attention, r.Gate)
	}
	if trim < mdNoDetails {
		for _, c := range attention {
			if c.Status == StatusFail {
				mdFailure(w, c, r.Gate, trim < mdNoEvidence)
			}
		}
	}
	switch {
	case len(passing) == 0:
	case trim >= mdNoPassing:
		fmt.Fprintf(w, "\n%d checks passed.\n", len(passing))
	default:
		fmt.Fprintf(w, "\n<details><summary>%d passing checks</summary>\n\n", len(passing))
		mdTable(w, passing, r.Gate)
		fmt.Fprintln(w, "\n</details>")
	}
	mdRun(w, r)
}

// mdTable writes checks as a table: status, ID, suite, title, level, and
// what was observed (for a failure) or why (otherwise).
func mdTable(w io.Writer, checks []Check, g *Gate) {
	fmt.Fprintln(w, "| Status | ID | Suite | Check | Level | Detail |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, c := range checks {
		detail := c.Reason
		if c.Status == StatusFail {
			detail = c.Observed
		}
		if note := gateNote(c, g); note != "" {
			detail = "(" + note + ") " + detail
		}
		if c.Change != "" {
			detail = "[" + string(c.Change) + "] " + detail
		}
		fmt.Fprintf(w, "| %s %s | %s | %s | %s | %s | %s |\n", statusEmoji[c.Status], mdText(c.Status.Word()), mdText(c.ID), mdText(c.Suite),
			mdText(c.Title), mdText(string(c.Level)), mdText(detail))
	}
}

func mdFailure(w io.Writer, c Check, g *Gate, evidence bool) {
	fmt.Fprintf(w, "\n<details open><summary><b>%s</b> %s</summary>\n\n", html.EscapeString(c.ID), html.EscapeString(oneLine(c.Title)))
	item := func(name, v string) {
		if v != "" {
			fmt.Fprintf(w, "- **%s:** %s\n", name, mdText(v))
		}
	}
	item("Gate", gateNote(c, g))
	item("Baseline", string(c.Change))
	item("Source", c.Source)
	item("Level", string(c.Level))
	item("Expected", c.Expected)
	item("Observed", c.Observed)
	if c.Reproduce != "" {
		fmt.Fprintf(w, "- **Reproduce:** %s\n", mdCode(c.Reproduce))
	}
	if evidence && len(c.Evidence) > 0 {
		shown, head := shownEvidence(c)
		lines := make([]string, 0, len(shown))
		for _, e := range shown {
			lines = append(lines, exchangeLine(e))
		}
		fmt.Fprintf(w, "\nEvidence, %s:\n\n%s", mdText(head), mdFence(lines))
	}
	if evidence && len(c.Counterexample) > 0 {
		steps := make([]string, len(c.Counterexample))
		for i, s := range c.Counterexample {
			steps[i] = fmt.Sprintf("%d. %s", i+1, s)
		}
		fmt.Fprintf(w, "\nCounterexample (shrunk):\n\n%s", mdFence(steps))
	}
	fmt.Fprintln(w, "\n</details>")
}

// mdRun lists the versions and tolerances in a closed section, so a reader
// can judge the verdict without them crowding the summary.
func mdRun(w io.Writer, r *Report) {
	fmt.Fprintf(w, "\n<details><summary>Run details</summary>\n\n")
	fmt.Fprintf(w, "- Tool: %s %s (%s)\n", mdText(r.Tool.Name), mdText(r.Tool.Version), mdText(r.Tool.Go))
	if len(r.Target.Defects) > 0 {
		fmt.Fprintf(w, "- Defects: %s\n", mdText(strings.Join(r.Target.Defects, ", ")))
	}
	if r.Journal != "" {
		fmt.Fprintf(w, "- Journal: %s\n", mdCode(r.Journal))
	}
	for _, t := range r.Tolerances {
		fmt.Fprintf(w, "- Tolerance %s = %s", mdText(t.Name), mdCode(t.Value))
		if t.Why != "" {
			fmt.Fprintf(w, ": %s", mdText(t.Why))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "\n</details>")
}

// mdEscaper neutralises the characters that would start Markdown or HTML
// syntax inside running text or a table cell.
var mdEscaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;", "|", "\\|", "\\", "\\\\", "`", "\\`",
	"*", "\\*", "_", "\\_", "[", "\\[", "]", "\\]", "#", "\\#",
)

// mdText escapes s for a single line of Markdown.
func mdText(s string) string { return mdEscaper.Replace(oneLine(s)) }

// mdCode wraps s in an inline code span long enough to hold any backticks
// inside it; callers keep it out of table cells.
func mdCode(s string) string {
	s = oneLine(s)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + s + pad + fence
}

// mdFence wraps lines in a fenced code block longer than any backtick run inside.
func mdFence(lines []string) string {
	body := strings.Join(lines, "\n")
	fence := strings.Repeat("`", max(3, longestRun(body, '`')+1))
	return fence + "text\n" + body + "\n" + fence + "\n"
}

func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}
