package reports

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

var _ Writer = WriteConsole

// consoleMarker labels a status in a fixed-width column; failures shout.
var consoleMarker = map[Status]string{
	StatusPass:          "pass",
	StatusFail:          "FAIL",
	StatusInconclusive:  "inconclusive",
	StatusNotApplicable: "n/a",
}

// WriteConsole writes a compact plain-text report: one line per check,
// failures expanded with expected, observed, up to five exchanges of
// evidence, the counterexample and the reproduce line, then a summary line
// with counts, verdict and seed.
func WriteConsole(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "resilcheck %s: target %s (%s), seed %d\n", r.Tool.Version, r.Target.Name, r.Target.Kind, r.Seed)
	if r.Interrupted != "" {
		fmt.Fprintf(bw, "INTERRUPTED: %s (partial report)\n", oneLine(r.Interrupted))
	}
	suite := "\x00"
	for _, c := range r.Checks {
		if c.Suite != suite {
			suite = c.Suite
			fmt.Fprintf(bw, "\n%s\n", suite)
		}
		consoleCheck(bw, c)
	}
	fmt.Fprintln(bw)
	if r.Reproduce != "" {
		fmt.Fprintf(bw, "reproduce: %s\n", r.Reproduce)
	}
	fmt.Fprintf(bw, "verdict %s: %s; seed %d; took %s\n", verdictWord(r.Verdict), counts(r.Totals()), r.Seed, short(r.Duration))
	return bw.Flush()
}

func consoleCheck(w io.Writer, c Check) {
	marker := consoleMarker[c.Status]
	if marker == "" {
		marker = string(c.Status)
	}
	fmt.Fprintf(w, "  %-12s %-7s %s", marker, c.ID, oneLine(c.Title))
	if c.Reason != "" && c.Status != StatusFail {
		fmt.Fprintf(w, " (%s)", oneLine(c.Reason))
	}
	fmt.Fprintln(w)
	if c.Status != StatusFail {
		return
	}
	const ind = "      "
	field := func(name, v string) {
		if v != "" {
			fmt.Fprintf(w, "%s%-9s %s\n", ind, name+":", strings.ReplaceAll(v, "\n", "\n"+ind+"          "))
		}
	}
	field("source", c.Source)
	field("level", string(c.Level))
	field("expected", c.Expected)
	field("observed", c.Observed)
	field("reason", c.Reason)
	if len(c.Evidence) > 0 {
		fmt.Fprintf(w, "%sevidence (%d exchanges):\n", ind, len(c.Evidence))
		for _, e := range c.Evidence[:min(len(c.Evidence), maxEvidence)] {
			fmt.Fprintf(w, "%s  %s\n", ind, exchangeLine(e))
		}
		if n := len(c.Evidence) - maxEvidence; n > 0 {
			fmt.Fprintf(w, "%s  ... and %d more in the JSON and HTML reports\n", ind, n)
		}
	}
	if len(c.Counterexample) > 0 {
		fmt.Fprintf(w, "%scounterexample (shrunk):\n", ind)
		for i, step := range c.Counterexample {
			fmt.Fprintf(w, "%s  %d. %s\n", ind, i+1, step)
		}
	}
	field("reproduce", c.Reproduce)
}
