package reports

import (
	"encoding/json"
	"io"
)

var _ Writer = WriteJSON

// WriteJSON writes r as indented JSON followed by a newline. Map keys are
// sorted by encoding/json, so the output is deterministic; a byte that is
// not UTF-8 is written as the text \xNN rather than lost to U+FFFD.
func WriteJSON(w io.Writer, r *Report) error {
	r = escaped(r, escapeInvalid)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
