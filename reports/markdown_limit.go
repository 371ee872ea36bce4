package reports

import (
	"bytes"
	"io"
	"strings"
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
	_, err := w.Write(mdCutAt(buf.Bytes(), limit))
	return err
}

// mdCutTail ends a rendering cut to fit.
const mdCutTail = "\n… (cut to fit)\n"

// mdCutAt returns b, or when it is longer than limit, its longest prefix of
// whole lines that fits with the closers of what the prefix left open (a
// code fence, <details> sections) and a note that it was cut; nothing when
// not even that fits, rather than broken Markdown.
func mdCutAt(b []byte, limit int) []byte {
	if len(b) <= limit {
		return b
	}
	end := max(limit-len(mdCutTail), 0)
	for {
		cut := bytes.LastIndexByte(b[:end], '\n')
		if cut < 0 {
			return nil
		}
		closers := mdClosers(b[:cut+1])
		if cut+1+len(closers)+len(mdCutTail) <= limit {
			out := append(b[:cut+1:cut+1], closers...)
			return append(out, mdCutTail...)
		}
		end = cut
	}
}

// mdClosers is what closes the code fence and the <details> sections that
// the whole lines of b leave open, fence first.
func mdClosers(b []byte) string {
	fence, open := "", 0
	for line := range strings.Lines(string(b)) {
		line = strings.TrimRight(line, "\n")
		ticks := len(line) - len(strings.TrimLeft(line, "`"))
		switch {
		case fence == "" && ticks >= 3:
			fence = line[:ticks]
		case fence != "":
			if ticks >= len(fence) && strings.TrimSpace(line[ticks:]) == "" {
				fence = ""
			}
		case strings.HasPrefix(line, "<details"):
			open++
		case strings.HasPrefix(line, "</details>"):
			open = max(open-1, 0)
		}
	}
	var c strings.Builder
	if fence != "" {
		c.WriteString(fence + "\n")
	}
	for range open {
		c.WriteString("\n</details>\n")
	}
	return c.String()
}
