package payments

import (
	"bytes"
	"encoding/json"
)

// duplicateMember returns the first object member name that repeats within
// one object of the JSON text raw, at any depth, or "" if none does. RFC 8259
// §4 leaves such an object's meaning to the reader (encoding/json keeps the
// last value, other parsers the first), so the service refuses it rather than
// guess which amount the client meant. Syntax errors give "": the decoder
// that reads the payment reports them.
func duplicateMember(raw []byte) string {
	name, _ := walkJSON(json.NewDecoder(bytes.NewReader(raw)))
	return name
}

// walkJSON consumes one value from dec, token by token.
func walkJSON(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	switch tok {
	case json.Delim('['):
		for dec.More() {
			if name, err := walkJSON(dec); name != "" || err != nil {
				return name, err
			}
		}
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return "", err
			}
			k, _ := tok.(string)
			if seen[k] {
				return k, nil
			}
			seen[k] = true
			if name, err := walkJSON(dec); name != "" || err != nil {
				return name, err
			}
		}
	default:
		return "", nil // a scalar
	}
	_, err = dec.Token() // the closing delimiter
	return "", err
}
