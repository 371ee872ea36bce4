package reports

import (
	"bufio"
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

// WriteMarkdown writes GitHub-flavoured Markdown that fits
// $GITHUB_STEP_SUMMARY: a heading with the verdict, a table of checks, then
// a collapsible details section per failure. User text is escaped.
func WriteMarkdown(w io.Writer, r *Report) error {
	r = escaped(r, escapeControls)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "## %s resilcheck: %s\n\n", verdictEmoji[r.Verdict], mdText(string(r.Verdict)))
	fmt.Fprintf(bw, "Target %s (%s), seed %s, %s, took %s.\n\n",
		mdCode(r.Target.Name), mdText(r.Target.Kind), mdCode(fmt.Sprint(r.Seed)), counts(r.Totals()), short(r.Duration))
	if r.Interrupted != "" {
		fmt.Fprintf(bw, "> **Interrupted:** %s. This is a partial report.\n\n", mdText(oneLine(r.Interrupted)))
	}
	if r.Reproduce != "" {
		fmt.Fprintf(bw, "Reproduce: %s\n\n", mdCode(r.Reproduce))
	}
	mdTable(bw, r)
	var failed []Check
	for _, c := range r.Checks {
		if c.Status == StatusFail {
			failed = append(failed, c)
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(bw, "\n### Failures\n")
		for _, c := range failed {
			mdFailure(bw, c)
		}
	}
	mdRun(bw, r)
	return bw.Flush()
}

func mdTable(w io.Writer, r *Report) {
	fmt.Fprintln(w, "| | ID | Suite | Check | Level | Detail |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, c := range r.Checks {
		detail := c.Reason
		if c.Status == StatusFail {
			detail = c.Observed
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", statusEmoji[c.Status], mdText(c.ID), mdText(c.Suite),
			mdText(c.Title), mdText(string(c.Level)), mdText(detail))
	}
}

func mdFailure(w io.Writer, c Check) {
	fmt.Fprintf(w, "\n<details><summary><b>%s</b> %s</summary>\n\n", html.EscapeString(c.ID), html.EscapeString(oneLine(c.Title)))
	item := func(name, v string) {
		if v != "" {
			fmt.Fprintf(w, "- **%s:** %s\n", name, mdText(v))
		}
	}
	item("Source", c.Source)
	item("Level", string(c.Level))
	item("Expected", c.Expected)
	item("Observed", c.Observed)
	if c.Reproduce != "" {
		fmt.Fprintf(w, "- **Reproduce:** %s\n", mdCode(c.Reproduce))
	}
	if len(c.Evidence) > 0 {
		lines := make([]string, 0, maxEvidence+1)
		for _, e := range c.Evidence[:min(len(c.Evidence), maxEvidence)] {
			lines = append(lines, exchangeLine(e))
		}
		if n := len(c.Evidence) - maxEvidence; n > 0 {
			lines = append(lines, fmt.Sprintf("... and %d more in report.html", n))
		}
		fmt.Fprintf(w, "\nEvidence (%d exchanges):\n\n%s", len(c.Evidence), mdFence(lines))
	}
	if len(c.Counterexample) > 0 {
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
