package reports

import (
	"fmt"
	"io"
)

// mdAborted says why no check ran, with the target's last output.
func mdAborted(w io.Writer, r *Report) {
	if r.Aborted == "" {
		return
	}
	fmt.Fprintf(w, "> **Aborted:** %s. No check ran.\n\n", mdText(r.Aborted))
	if r.TargetOutput != "" {
		fmt.Fprintf(w, "The target's last output:\n\n%s\n", mdFence(outputLines(r.TargetOutput)))
	}
}

// mdGate writes the gate the verdict follows, its waivers (an expired one
// in bold) and the comparison with the baseline.
func mdGate(w io.Writer, r *Report) {
	if r.Gate != nil {
		fmt.Fprintf(w, "**Gate:** %s.\n\n", mdText(gateWords(r.Gate)))
		for _, wv := range r.Gate.Waivers {
			line := mdText(waiverWords(wv))
			if wv.State == WaiverExpired {
				line = "**" + line + "**"
			}
			fmt.Fprintf(w, "- Waiver %s\n", line)
		}
		if len(r.Gate.Waivers) > 0 {
			fmt.Fprintln(w)
		}
	}
	if b := r.Baseline; b != nil {
		fmt.Fprintf(w, "**Baseline** %s: %s.\n\n", mdCode(b.File), mdText(baselineWords(b)))
		for _, l := range baselineLists(b) {
			fmt.Fprintf(w, "- %s\n", mdText(l))
		}
		if len(baselineLists(b)) > 0 {
			fmt.Fprintln(w)
		}
	}
}
