package reports

import (
	"encoding/json"
	"io"
)

var _ Writer = WriteJSON

// WriteJSON writes r as indented JSON followed by a newline. Map keys are
// sorted by encoding/json, so the output is deterministic.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
