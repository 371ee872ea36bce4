package payments

import (
	"errors"
	"strings"
)

// MaxKeyLen is the longest Idempotency-Key accepted (Stripe's published limit).
const MaxKeyLen = 255

var (
	errKeyMissing = errors.New("payments: Idempotency-Key is missing")
	errKeyInvalid = errors.New("payments: Idempotency-Key is malformed")
)

// parseKey reads the Idempotency-Key field lines. It accepts an RFC 8941
// sf-string ("…", printable ASCII, \" and \\ escapes) per the draft, and, as
// deployed APIs do, a bare token of [A-Za-z0-9._:~-]. The decoded key must be
// 1–255 characters. Several field lines are malformed, not merged.
func parseKey(values []string) (string, error) {
	switch len(values) {
	case 0:
		return "", errKeyMissing
	case 1:
	default:
		return "", errKeyInvalid
	}
	v := values[0]
	if v == "" {
		return "", errKeyMissing
	}
	var key string
	if v[0] == '"' {
		k, ok := parseSFString(v)
		if !ok {
			return "", errKeyInvalid
		}
		key = k
	} else {
		for i := 0; i < len(v); i++ {
			if !isTokenChar(v[i]) {
				return "", errKeyInvalid
			}
		}
		key = v
	}
	if key == "" || len(key) > MaxKeyLen {
		return "", errKeyInvalid
	}
	return key, nil
}

// parseSFString decodes an RFC 8941 §3.3.3 String that spans all of v.
func parseSFString(v string) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	var b strings.Builder
	for i := 1; i < len(v)-1; i++ {
		c := v[i]
		switch {
		case c == '\\':
			i++
			if i >= len(v)-1 || (v[i] != '"' && v[i] != '\\') {
				return "", false
			}
			b.WriteByte(v[i])
		case c == '"', c < 0x20, c > 0x7e:
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

func isTokenChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '.' || c == '_' || c == ':' || c == '~' || c == '-'
}
