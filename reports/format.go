package reports

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// maxEvidence is how many exchanges the console and Markdown show per
// failure; the JSON and HTML keep them all.
const maxEvidence = 5

// shownEvidence picks the exchanges the console and Markdown show for c (see
// SampleEvidence) and describes them: "6 exchanges, 5 shown: around each
// injected fault, then the first and the last (all in report.html)".
func shownEvidence(c Check) ([]Exchange, string) {
	shown := SampleEvidence(c.Evidence, maxEvidence)
	total := max(c.EvidenceTotal, len(c.Evidence))
	head := fmt.Sprintf("%d exchanges", total)
	if len(shown) < total {
		head += fmt.Sprintf(", %d shown: around each injected fault, then the first and the last (", len(shown))
		if len(c.Evidence) < total {
			head += "the journal has them all)"
		} else {
			head += "all in report.html)"
		}
	}
	return shown, head
}

// short rounds a duration for display, keeping three significant-ish digits
// of the unit a human reads.
func short(d Duration) string {
	v := time.Duration(d)
	abs := v.Abs()
	switch {
	case abs >= time.Second:
		v = v.Round(time.Millisecond)
	case abs >= time.Millisecond:
		v = v.Round(100 * time.Microsecond)
	case abs >= time.Microsecond:
		v = v.Round(time.Microsecond)
	}
	return v.String()
}

// exchangeLine renders one exchange on one line, headers sorted by name:
// #11 +100ms client case=c1 POST /payments -> 201 (31ms) fault=f {K: v} note: n
func exchangeLine(e Exchange) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s %s", e.ID, offset(e.At), e.Side)
	if e.Case != "" {
		fmt.Fprintf(&b, " case=%s", e.Case)
	}
	fmt.Fprintf(&b, " %s %s -> %s (%s)", e.Method, e.Path, statusText(e.Status), short(e.Took))
	if e.Fault != "" {
		fmt.Fprintf(&b, " fault=%s", e.Fault)
	}
	if len(e.Headers) > 0 {
		hs := make([]string, 0, len(e.Headers))
		for _, k := range slices.Sorted(maps.Keys(e.Headers)) {
			hs = append(hs, k+": "+e.Headers[k])
		}
		fmt.Fprintf(&b, " {%s}", strings.Join(hs, "; "))
	}
	if e.Note != "" {
		fmt.Fprintf(&b, " note: %s", e.Note)
	}
	return oneLine(b.String())
}

// statusText is the HTTP status, or "no response" for 0.
func statusText(code int) string {
	if code == 0 {
		return "no response"
	}
	return fmt.Sprint(code)
}

// oneLine folds line breaks so a value fits a single output line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
