package reports

import (
	"bytes"
	"io"
)

// mdTrim is how much a Markdown rendering leaves out to fit a size limit,
// each level including the ones before it.
type mdTrim int

const (
	mdWhole      mdTrim = iota
	mdNoEvidence        // no exchanges or counterexamples in the failure details
	mdNoPassing         // the passing checks counted, not listed
	mdNoDetails         // the failures in the table only
	mdCut               // the text cut at the last line that fits
)

// mdTrimNotes say what a trimmed rendering left out, in its own text.
var mdTrimNotes = map[mdTrim]string{
	mdNoEvidence: "the evidence and counterexamples",
	mdNoPassing:  "the evidence, counterexamples and the list of passing checks",
	mdNoDetails:  "the evidence, counterexamples, the passing checks and the failures' details",
	mdCut:        "the evidence, counterexamples, the passing checks, the failures' details and the text after the last line that fit",
}

// WriteMarkdownLimit is WriteMarkdown within limit bytes: when the whole
// rendering is larger it leaves out the evidence, then the passing rows,
// then the failures' details, then cuts the text, and says so at the top.
func WriteMarkdownLimit(w io.Writer, r *Report, limit int) error {
	r = escaped(r, escapeControls)
	var buf bytes.Buffer
	for trim := mdWhole; trim < mdCut; trim++ {
		buf.Reset()
		mdRender(&buf, r, trim)
		if buf.Len() <= limit {
			_, err := w.Write(buf.Bytes())
			return err
		}
	}
	buf.Reset()
	mdRender(&buf, r, mdCut)
	b := buf.Bytes()
	if len(b) > limit {
		tail := []byte("\n… (cut to fit)\n")
		cut := bytes.LastIndexByte(b[:max(limit-len(tail), 0)], '\n')
		b = append(b[:max(cut, 0):max(cut, 0)], tail...)
		if len(b) > limit {
			b = b[:0] // a limit too small for any text: write nothing rather than break it
		}
	}
	_, err := w.Write(b)
	return err
}
