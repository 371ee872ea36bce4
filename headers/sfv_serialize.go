package headers

import (
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxSFInteger bounds sf-integer and the integer part of sf-decimal (RFC 9651 §3.3.1).
const maxSFInteger = 999_999_999_999_999

// SerializeItem renders it per RFC 9651 §4.1.3; an unsupported Go type or a
// value outside the grammar gives an error wrapping ErrSyntax.
func SerializeItem(it Item) (string, error) {
	var b strings.Builder
	err := writeItem(&b, it)
	return b.String(), err
}

// SerializeList renders a List per RFC 9651 §4.1.1, members separated by ", ".
func SerializeList(l []Member) (string, error) {
	var b strings.Builder
	for i, m := range l {
		if i > 0 {
			b.WriteString(", ")
		}
		if err := writeMember(&b, m); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// SerializeDictionary renders a Dictionary per RFC 9651 §4.1.2; a member
// whose value is true is written as its bare key.
func SerializeDictionary(d Dictionary) (string, error) {
	var b strings.Builder
	for i, e := range d {
		if i > 0 {
			b.WriteString(", ")
		}
		if err := writeKey(&b, e.Key); err != nil {
			return "", err
		}
		if v, ok := e.Value.(bool); ok && v && !e.IsInner {
			if err := writeParams(&b, e.Params); err != nil {
				return "", err
			}
			continue
		}
		b.WriteByte('=')
		if err := writeMember(&b, e.Member); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

func writeMember(b *strings.Builder, m Member) error {
	if !m.IsInner {
		return writeItem(b, m.Item)
	}
	b.WriteByte('(')
	for i, it := range m.Inner {
		if i > 0 {
			b.WriteByte(' ')
		}
		if err := writeItem(b, it); err != nil {
			return err
		}
	}
	b.WriteByte(')')
	return writeParams(b, m.Params)
}

func writeItem(b *strings.Builder, it Item) error {
	if err := writeBareItem(b, it.Value); err != nil {
		return err
	}
	return writeParams(b, it.Params)
}

func writeParams(b *strings.Builder, ps Params) error {
	for _, p := range ps {
		b.WriteByte(';')
		if err := writeKey(b, p.Key); err != nil {
			return err
		}
		if v, ok := p.Value.(bool); ok && v {
			continue
		}
		b.WriteByte('=')
		if err := writeBareItem(b, p.Value); err != nil {
			return err
		}
	}
	return nil
}

func writeKey(b *strings.Builder, k string) error {
	if k == "" || (!isLCAlpha(k[0]) && k[0] != '*') {
		return sfSerializeError("key %q must start with a lower-case letter or '*'", k)
	}
	for i := 1; i < len(k); i++ {
		if !isKeyChar(k[i]) {
			return sfSerializeError("key %q has an invalid character", k)
		}
	}
	b.WriteString(k)
	return nil
}

func writeBareItem(b *strings.Builder, v any) error {
	switch v := v.(type) {
	case int64:
		return writeInteger(b, v)
	case float64:
		return writeDecimal(b, v)
	case string:
		return writeString(b, v)
	case Token:
		return writeToken(b, v)
	case []byte:
		b.WriteByte(':')
		b.WriteString(base64.StdEncoding.EncodeToString(v))
		b.WriteByte(':')
	case bool:
		b.WriteString(map[bool]string{true: "?1", false: "?0"}[v])
	case Date:
		b.WriteByte('@')
		return writeInteger(b, int64(v))
	case DisplayString:
		return writeDisplayString(b, v)
	default:
		return sfSerializeError("unsupported bare item type %T", v)
	}
	return nil
}

func writeInteger(b *strings.Builder, n int64) error {
	if n > maxSFInteger || n < -maxSFInteger {
		return sfSerializeError("integer %d out of range", n)
	}
	b.WriteString(strconv.FormatInt(n, 10))
	return nil
}

// writeDecimal rounds to three fractional digits, half to even (§4.1.5).
func writeDecimal(b *strings.Builder, f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return sfSerializeError("decimal %v is not finite", f)
	}
	r := math.RoundToEven(f * 1000)
	if math.Abs(r) >= 1e15 {
		return sfSerializeError("decimal %v has more than 12 integer digits", f)
	}
	n := int64(math.Abs(r))
	if f < 0 { // by the input's sign, as §4.1.5 step 4 says, so -0.0002 is "-0.0"
		b.WriteByte('-')
	}
	frac := strings.TrimRight(fmt.Sprintf("%03d", n%1000), "0")
	if frac == "" {
		frac = "0"
	}
	b.WriteString(strconv.FormatInt(n/1000, 10) + "." + frac)
	return nil
}

func writeString(b *strings.Builder, s string) error {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e {
			return sfSerializeError("string %q has a byte outside %%x20-7E", s)
		}
		if c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	b.WriteByte('"')
	return nil
}

func writeToken(b *strings.Builder, t Token) error {
	if t == "" || (!isAlpha(t[0]) && t[0] != '*') {
		return sfSerializeError("token %q must start with a letter or '*'", t)
	}
	for i := 1; i < len(t); i++ {
		if c := t[i]; !isTChar(c) && c != ':' && c != '/' {
			return sfSerializeError("token %q has an invalid character", t)
		}
	}
	b.WriteString(string(t))
	return nil
}

func writeDisplayString(b *strings.Builder, s DisplayString) error {
	if !utf8.ValidString(string(s)) {
		return sfSerializeError("display string is not valid UTF-8")
	}
	b.WriteString(`%"`)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' || c == '"' || c < 0x20 || c > 0x7e {
			fmt.Fprintf(b, "%%%02x", c)
			continue
		}
		b.WriteByte(c)
	}
	b.WriteByte('"')
	return nil
}

func sfSerializeError(format string, a ...any) error {
	return fmt.Errorf("headers: serializing structured field: %s: %w", fmt.Sprintf(format, a...), ErrSyntax)
}
