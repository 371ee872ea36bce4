package reports

import (
	"io"
	"strings"
	"unicode/utf8"
)

// consoleWidth is the terminal width the console report is laid out for.
const consoleWidth = 80

// wrap writes text word by word in lines of at most width runes, the first
// line starting with first and the others with rest (both counted). A word
// longer than a whole line, such as a URL, gets a line of its own rather
// than being cut. Line breaks in text are kept.
func wrap(w io.Writer, first, rest, text string, width int) {
	prefix := first
	for i, para := range strings.Split(text, "\n") {
		if i > 0 {
			prefix = rest
		}
		line, n := prefix, utf8.RuneCountInString(prefix)
		empty := true
		for _, word := range strings.Fields(para) {
			wn := utf8.RuneCountInString(word)
			if !empty && n+1+wn > width {
				io.WriteString(w, line+"\n")
				line, n, empty = rest, utf8.RuneCountInString(rest), true
			}
			if !empty {
				line, n = line+" ", n+1
			}
			line, n, empty = line+word, n+wn, false
		}
		io.WriteString(w, strings.TrimRight(line, " ")+"\n")
	}
}
