package reports

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

var _ Writer = WriteConsole

// WriteConsole writes the run's summary for a terminal, laid out for 80
// columns: failures first, each with expected, observed, up to five
// exchanges, the counterexample and the reproduce line; then inconclusive
// and not-applicable checks with their reason; then the passing checks as
// IDs per suite. The last line is the verdict with the counts.
func WriteConsole(w io.Writer, r *Report) error {
	r = escaped(r, escapeControls)
	bw := bufio.NewWriter(w)
	wrap(bw, "", "  ", fmt.Sprintf("resilcheck %s: target %s (%s)", r.Tool.Version, r.Target.Name, r.Target.Kind), consoleWidth)
	fmt.Fprintf(bw, "seed %d\n", r.Seed)
	if r.Interrupted != "" {
		wrap(bw, "INTERRUPTED: ", "  ", oneLine(r.Interrupted)+" (partial report)", consoleWidth)
	}
	consoleAborted(bw, r)
	checks := failuresFirst(r.Checks)
	rank := -1
	for _, c := range checks {
		if c.Status == StatusPass {
			break
		}
		if k := statusRank(c.Status); k != rank || c.Status == StatusFail {
			rank = k // a blank line before each failure, and before each other group
			fmt.Fprintln(bw)
		}
		consoleCheck(bw, c, r.Gate)
	}
	consolePasses(bw, checks)
	fmt.Fprintln(bw)
	if r.Reproduce != "" {
		fmt.Fprintf(bw, "reproduce: %s\n", r.Reproduce) // unwrapped, to copy
	}
	consoleLogs(bw, r)
	consoleTLS(bw, r)
	consoleGate(bw, r)
	fmt.Fprintf(bw, "verdict %s: %s%s (%s)\n", verdictWord(r.Verdict), counts(r.Totals()), excusedWords(r), short(r.Duration))
	return bw.Flush()
}

// consoleLabel is the indent of a field's value under a check.
const consoleLabel = "             "

// consoleCheck writes one check that did not pass: a line with its status
// word, ID and title, then its details (all of them for a failure, the
// reason otherwise).
func consoleCheck(w io.Writer, c Check, g *Gate) {
	wrap(w, c.Status.Word()+"  "+c.ID+"  ", "    ", oneLine(c.Title), consoleWidth)
	field := func(name, v string) {
		if v != "" {
			wrap(w, fmt.Sprintf("  %-11s", name), consoleLabel, v, consoleWidth)
		}
	}
	field("gate", gateNote(c, g))
	field("baseline", string(c.Change))
	if c.Status != StatusFail {
		field("reason", c.Reason)
		return
	}
	meta := []string{c.Suite}
	for _, s := range []string{string(c.Level), c.Source} {
		if s != "" {
			meta = append(meta, s)
		}
	}
	wrap(w, "  ", "  ", strings.Join(meta, " · "), consoleWidth)
	field("expected", c.Expected)
	field("observed", c.Observed)
	field("reason", c.Reason)
	if len(c.Evidence) > 0 {
		shown, head := shownEvidence(c)
		field("evidence", head+":")
		for _, e := range shown {
			wrap(w, consoleLabel, consoleLabel+"  ", exchangeLine(e), consoleWidth)
		}
	}
	if len(c.Counterexample) > 0 {
		field("shrunk to", fmt.Sprintf("%d steps:", len(c.Counterexample)))
		for i, step := range c.Counterexample {
			wrap(w, fmt.Sprintf("%s%d. ", consoleLabel, i+1), consoleLabel+"   ", oneLine(step), consoleWidth)
		}
	}
	if c.Reproduce != "" {
		fmt.Fprintf(w, "  %-11s%s\n", "reproduce", c.Reproduce) // unwrapped, to copy
	}
}

// consolePasses lists the passing checks as IDs, one wrapped line per suite:
// the progress lines already named each one as it finished.
func consolePasses(w io.Writer, checks []Check) {
	var suites []string
	ids := map[string][]string{}
	for _, c := range checks {
		if c.Status != StatusPass {
			continue
		}
		if _, ok := ids[c.Suite]; !ok {
			suites = append(suites, c.Suite)
		}
		ids[c.Suite] = append(ids[c.Suite], c.ID)
	}
	if len(suites) == 0 {
		return
	}
	fmt.Fprintln(w)
	for _, s := range suites {
		wrap(w, fmt.Sprintf("pass  %s (%d): ", s, len(ids[s])), "      ", strings.Join(ids[s], " "), consoleWidth)
	}
}
