package headers

import (
	"encoding/base64"
	"strconv"
	"strings"
	"unicode/utf8"
)

// bareItem parses an sf-item's bare value (RFC 9651 §4.2.3.1).
func (p *sfParser) bareItem() (any, error) {
	switch c := p.peek(); {
	case c == '-' || isDigit(c):
		return p.number()
	case c == '"':
		return p.str()
	case isAlpha(c) || c == '*':
		return p.token(), nil
	case c == ':':
		return p.binary()
	case c == '?':
		return p.boolean()
	case c == '@':
		p.i++
		n, err := p.number()
		if err != nil {
			return nil, err
		}
		if _, ok := n.(int64); !ok {
			return nil, p.errorf("a date must be an integer")
		}
		return Date(n.(int64)), nil
	case c == '%':
		return p.displayString()
	case p.empty():
		return nil, p.errorf("missing value")
	default:
		return nil, p.errorf("unexpected %q where a value should start", c)
	}
}

// number parses an sf-integer or sf-decimal (RFC 9651 §4.2.4).
func (p *sfParser) number() (any, error) {
	start := p.i
	if p.peek() == '-' {
		p.i++
	}
	if !isDigit(p.peek()) {
		return nil, p.errorf("a number needs a digit")
	}
	digits, dot := 0, -1
	for ; !p.empty(); p.i++ {
		c := p.s[p.i]
		if c == '.' && dot < 0 {
			if digits > 12 {
				return nil, p.errorf("a decimal has at most 12 integer digits")
			}
			dot = digits
			continue
		}
		if !isDigit(c) {
			break
		}
		digits++
		if dot < 0 && digits > 15 {
			return nil, p.errorf("an integer has at most 15 digits")
		}
	}
	text := p.s[start:p.i]
	if dot < 0 {
		n, _ := strconv.ParseInt(text, 10, 64)
		return n, nil
	}
	switch frac := digits - dot; {
	case frac == 0:
		return nil, p.errorf("a decimal cannot end with '.'")
	case frac > 3:
		return nil, p.errorf("a decimal has at most 3 fractional digits")
	}
	f, _ := strconv.ParseFloat(text, 64)
	return f, nil
}

func (p *sfParser) str() (string, error) {
	p.i++
	var b strings.Builder
	for !p.empty() {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '\\':
			if p.empty() || (p.s[p.i] != '"' && p.s[p.i] != '\\') {
				return "", p.errorf("a string may only escape '\"' and '\\'")
			}
			b.WriteByte(p.s[p.i])
			p.i++
		case c == '"':
			return b.String(), nil
		case c < 0x20 || c > 0x7e:
			return "", p.errorf("control character in a string")
		default:
			b.WriteByte(c)
		}
	}
	return "", p.errorf("string not terminated")
}

func (p *sfParser) token() Token {
	start := p.i
	for p.i++; !p.empty() && (isTChar(p.s[p.i]) || p.s[p.i] == ':' || p.s[p.i] == '/'); p.i++ {
	}
	return Token(p.s[start:p.i])
}

// binary parses an sf-binary. Missing "=" padding and non-zero pad bits are
// accepted, as RFC 9651 §4.2.7 says parsers SHOULD NOT fail on them.
func (p *sfParser) binary() ([]byte, error) {
	p.i++
	n := strings.IndexByte(p.s[p.i:], ':')
	if n < 0 {
		return nil, p.errorf("byte sequence not terminated")
	}
	b64 := p.s[p.i : p.i+n]
	for i := 0; i < len(b64); i++ {
		if c := b64[i]; !isAlpha(c) && !isDigit(c) && c != '+' && c != '/' && c != '=' {
			return nil, p.errorf("%q is not a base64 character", c)
		}
	}
	out, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(b64, "="))
	if err != nil || len(b64)-len(strings.TrimRight(b64, "=")) > 2 {
		return nil, p.errorf("invalid base64 %q", b64)
	}
	p.i += n + 1
	if out == nil {
		out = []byte{}
	}
	return out, nil
}

func (p *sfParser) boolean() (bool, error) {
	p.i++
	switch p.peek() {
	case '1':
		p.i++
		return true, nil
	case '0':
		p.i++
		return false, nil
	}
	return false, p.errorf("a boolean is ?0 or ?1")
}

func (p *sfParser) displayString() (DisplayString, error) {
	p.i++
	if p.peek() != '"' {
		return "", p.errorf("a display string starts with %%\"")
	}
	p.i++
	var b []byte
	for !p.empty() {
		c := p.s[p.i]
		p.i++
		switch {
		case c < 0x20 || c > 0x7e:
			return "", p.errorf("control character in a display string")
		case c == '%':
			if p.i+2 > len(p.s) || !isLCHex(p.s[p.i]) || !isLCHex(p.s[p.i+1]) {
				return "", p.errorf("'%%' must be followed by two lower-case hex digits")
			}
			n, _ := strconv.ParseUint(p.s[p.i:p.i+2], 16, 8)
			b = append(b, byte(n))
			p.i += 2
		case c == '"':
			if !utf8.Valid(b) {
				return "", p.errorf("display string is not valid UTF-8")
			}
			return DisplayString(b), nil
		default:
			b = append(b, c)
		}
	}
	return "", p.errorf("display string not terminated")
}

func isDigit(c byte) bool   { return c >= '0' && c <= '9' }
func isLCAlpha(c byte) bool { return c >= 'a' && c <= 'z' }
func isAlpha(c byte) bool   { return isLCAlpha(c) || c >= 'A' && c <= 'Z' }
func isLCHex(c byte) bool   { return isDigit(c) || c >= 'a' && c <= 'f' }
func isKeyChar(c byte) bool {
	return isLCAlpha(c) || isDigit(c) || c == '_' || c == '-' || c == '.' || c == '*'
}

// isTChar reports whether c is an RFC 9110 tchar.
func isTChar(c byte) bool {
	return isAlpha(c) || isDigit(c) || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
