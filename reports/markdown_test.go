package reports

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// bigReport is fixture with n more failing checks, each carrying exchanges
// of evidence and a long observation, and n passing ones.
func bigReport(n, exchanges int) *Report {
	r := fixture()
	for i := range n {
		ev := make([]Exchange, exchanges)
		for j := range ev {
			ev[j] = Exchange{ID: uint64(j), Side: "front", Method: "POST", Path: "/payments/" + strings.Repeat("p", 60), Status: 503,
				Headers: map[string]string{"Idempotency-Key": strings.Repeat("k", 80)}, At: ms(j), Took: ms(1)}
		}
		r.Checks = append(r.Checks,
			Check{ID: fmt.Sprintf("X-%d", i), Suite: "bulk", Title: "a generated failure", Status: StatusFail, Level: LevelMust,
				Observed: strings.Repeat("observed ", 40), Evidence: ev, Counterexample: []string{"step one", "step two"}},
			Check{ID: fmt.Sprintf("Y-%d", i), Suite: "bulk", Title: "a generated pass " + strings.Repeat("t", 200), Status: StatusPass, Level: LevelShould})
	}
	r.Finalize()
	return r
}

// TestWriteMarkdownLimit checks each trim level in turn: under a shrinking
// limit the output fits, stays valid UTF-8 with balanced <details>, says it
// was trimmed and what it left out.
func TestWriteMarkdownLimit(t *testing.T) {
	t.Parallel()
	r := bigReport(20, 40)
	render := func(limit int) string {
		var buf bytes.Buffer
		if err := WriteMarkdownLimit(&buf, r, limit); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	whole := render(StepSummaryLimit)
	if strings.Contains(whole, "Trimmed") || !strings.Contains(whole, "Evidence, ") {
		t.Fatalf("a %d-byte rendering was trimmed under the 1 MiB limit", len(whole))
	}
	size := func(trim mdTrim) int {
		var buf bytes.Buffer
		mdRender(&buf, r, trim)
		return buf.Len()
	}
	cases := []struct {
		name       string
		limit      int
		want, lose []string
	}{
		{"evidence goes first", size(mdNoEvidence), []string{"passing checks</summary>", "<details open><summary><b>X-3</b>"}, []string{"Evidence, ", "Counterexample"}},
		{"then the passing rows", size(mdNoPassing), []string{"checks passed.", "<b>X-3</b>"}, []string{"passing checks</summary>", "| Y-3 |"}},
		{"then the failures' details", size(mdNoDetails), []string{"| X-3 |"}, []string{"<b>X-3</b>"}},
		{"then the text is cut", size(mdNoDetails) - 1, []string{"cut to fit"}, nil},
	}
	for _, c := range cases {
		out := render(c.limit)
		if len(out) > c.limit || !utf8.ValidString(out) || !strings.Contains(out, "**Trimmed**") {
			t.Errorf("%s: %d bytes under a limit of %d (valid UTF-8 %v, says trimmed %v)", c.name, len(out), c.limit,
				utf8.ValidString(out), strings.Contains(out, "**Trimmed**"))
		}
		if strings.Count(out, "<details") != strings.Count(out, "</details>") {
			t.Errorf("%s: unbalanced <details>", c.name)
		}
		for _, s := range c.want {
			if !strings.Contains(out, s) {
				t.Errorf("%s: output lacks %q", c.name, s)
			}
		}
		for _, s := range c.lose {
			if strings.Contains(out, s) {
				t.Errorf("%s: output still has %q", c.name, s)
			}
		}
	}
}

// TestWriteMarkdown_StepSummary renders a report far over 1 MiB in full and
// checks summary.md fits GitHub's step summary.
func TestWriteMarkdown_StepSummary(t *testing.T) {
	t.Parallel()
	r := bigReport(600, 5)
	var full, buf bytes.Buffer
	mdRender(&full, r, mdWhole)
	if err := WriteMarkdown(&buf, r); err != nil {
		t.Fatal(err)
	}
	if full.Len() <= StepSummaryLimit || buf.Len() > StepSummaryLimit-StepSummaryMargin {
		t.Errorf("whole rendering %d bytes, written %d; want over %d and under %d", full.Len(), buf.Len(), StepSummaryLimit, StepSummaryLimit-StepSummaryMargin)
	}
}

// TestMdCutAt: a cut ends on a whole line and closes what it left open, so
// a summary cut inside evidence or a section still renders as Markdown.
func TestMdCutAt(t *testing.T) {
	t.Parallel()
	doc := "# head\n\n<details><summary>a</summary>\n\n````text\nline ``` inside\n```\nmore\n````\n\n</details>\n\n<details open><summary>b</summary>\n\n```text\nx\ny\n" + strings.Repeat("z", 40) + "\n```\n</details>\n"
	at := func(s string) int { return strings.Index(doc, s) + len(s) }
	for _, c := range []struct {
		name  string
		limit int
		want  string // the output's start; "" for nothing
		ends  string // what it ends with before the note
	}{
		{"fits", len(doc), doc, ""},
		{"inside a longer fence", at("```\n") + len("````\n\n</details>\n") + len(mdCutTail), "# head\n\n<details><summary>a</summary>\n\n````text\nline ``` inside\n```\n", "```\n````\n\n</details>\n"},
		{"inside the second section", at("y\n") + len("```\n\n</details>\n") + len(mdCutTail), doc[:at("y\n")], "y\n```\n\n</details>\n"},
		{"too small for any line", 8, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := string(mdCutAt([]byte(doc), c.limit))
			switch {
			case len(out) > c.limit:
				t.Errorf("%d bytes under a limit of %d", len(out), c.limit)
			case !strings.HasPrefix(out, c.want) || (c.want == "") != (out == ""):
				t.Errorf("mdCutAt = %q; want it to start %q", out, c.want)
			case c.ends != "" && !strings.HasSuffix(out, c.ends+mdCutTail):
				t.Errorf("mdCutAt = %q; want it to end %q and the note", out, c.ends)
			case strings.Count(out, "<details") != strings.Count(out, "</details>"):
				t.Errorf("mdCutAt = %q: unbalanced <details>", out)
			}
		})
	}
}
