package reports

import (
	"fmt"
	"io"
	"strings"
)

// consoleAborted says why no check ran and shows the target's last output.
func consoleAborted(w io.Writer, r *Report) {
	if r.Aborted == "" {
		return
	}
	wrap(w, "ABORTED: ", "  ", oneLine(r.Aborted)+" (no check ran)", consoleWidth)
	if r.TargetOutput != "" {
		fmt.Fprintln(w, "target's last output:")
		for _, l := range outputLines(r.TargetOutput) {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
}

// outputLines splits the target's last output into lines, each without the
// one tab that indents it in an error message: a stack trace's own
// indentation stays.
func outputLines(out string) []string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "\t")
	}
	return lines
}

// consoleGate writes the gate the verdict follows, its waivers and the
// comparison with the baseline, just above the verdict line.
func consoleGate(w io.Writer, r *Report) {
	if r.Baseline != nil {
		wrap(w, "baseline: ", "  ", fmt.Sprintf("%s (%s)", baselineWords(r.Baseline), r.Baseline.File), consoleWidth)
		for _, l := range baselineLists(r.Baseline) {
			wrap(w, "  ", "    ", l, consoleWidth)
		}
	}
	if r.Gate == nil {
		return
	}
	wrap(w, "gate: ", "  ", gateWords(r.Gate), consoleWidth)
	for _, wv := range r.Gate.Waivers {
		wrap(w, "  waiver ", "    ", waiverWords(wv), consoleWidth)
	}
}
