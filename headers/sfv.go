package headers

import (
	"fmt"
	"strings"
)

// Structured Field Values (RFC 9651). A bare item is held as one of these Go
// types: int64 (Integer), float64 (Decimal), string (String), Token,
// []byte (Byte Sequence), bool (Boolean), Date or DisplayString.

// Token is an sf-token bare item (RFC 9651 §3.3.4), e.g. `foo/bar`.
type Token string

// Date is an sf-date bare item (RFC 9651 §3.3.7): seconds since the Unix epoch.
type Date int64

// DisplayString is an sf-displaystring bare item (RFC 9651 §3.3.8): Unicode
// text, percent-encoded on the wire.
type DisplayString string

// Param is one parameter of an Item or Inner List; a bare key carries true.
type Param struct {
	Key   string
	Value any
}

// Params are ordered parameters with unique keys; nil means none.
type Params []Param

// Get returns the value of key and whether it is present.
func (ps Params) Get(key string) (any, bool) {
	for _, p := range ps {
		if p.Key == key {
			return p.Value, true
		}
	}
	return nil, false
}

// Item is a bare item with parameters (RFC 9651 §3.3).
type Item struct {
	Value  any
	Params Params
}

// Member is a List or Dictionary member: an Item, or an Inner List when
// IsInner is set (then Inner holds its items, nil for `()`, Item.Value is nil
// and Item.Params are the inner list's parameters).
type Member struct {
	Item
	Inner   []Item
	IsInner bool
}

// DictEntry is one key and member of a Dictionary.
type DictEntry struct {
	Key string
	Member
}

// Dictionary is an ordered map with unique keys (RFC 9651 §3.2).
type Dictionary []DictEntry

// Get returns the member under key and whether it is present.
func (d Dictionary) Get(key string) (Member, bool) {
	for _, e := range d {
		if e.Key == key {
			return e.Member, true
		}
	}
	return Member{}, false
}

// ParseItem parses a field value holding one Item. Errors wrap ErrSyntax.
func ParseItem(v string) (Item, error) {
	p, err := newSFParser(v)
	if err != nil {
		return Item{}, err
	}
	it, err := p.item()
	if err != nil {
		return Item{}, err
	}
	return it, p.end()
}

// ParseList parses a field value holding a List; an empty value is an empty
// List (the field is then treated as absent). Errors wrap ErrSyntax.
func ParseList(v string) ([]Member, error) {
	p, err := newSFParser(v)
	if err != nil {
		return nil, err
	}
	var out []Member
	for !p.empty() {
		if len(out) == MaxSFMembers {
			return nil, p.errorf("more than %d list members", MaxSFMembers)
		}
		m, err := p.member()
		if err != nil {
			return nil, err
		}
		out = append(out, m)
		if done, err := p.nextMember(); done || err != nil {
			return out, err
		}
	}
	return out, nil
}

// ParseDictionary parses a field value holding a Dictionary. A repeated key
// overwrites the earlier value in place (RFC 9651 §4.2.2). Errors wrap ErrSyntax.
func ParseDictionary(v string) (Dictionary, error) {
	p, err := newSFParser(v)
	if err != nil {
		return nil, err
	}
	var out Dictionary
	var seen keyIndex
	for n := 0; !p.empty(); n++ {
		if n == MaxSFMembers {
			return nil, p.errorf("more than %d dictionary members", MaxSFMembers)
		}
		k, err := p.key()
		if err != nil {
			return nil, err
		}
		var m Member
		if p.peek() == '=' {
			p.i++
			if m, err = p.member(); err != nil {
				return nil, err
			}
		} else if m.Params, err = p.params(); err != nil {
			return nil, err
		} else {
			m.Value = true
		}
		if i, ok := seen.add(k, len(out)); ok {
			out[i].Member = m
		} else {
			out = append(out, DictEntry{Key: k, Member: m})
		}
		if done, err := p.nextMember(); done || err != nil {
			return out, err
		}
	}
	return out, nil
}

// sfParser walks one field value; i is the offset of the next character.
type sfParser struct {
	s string
	i int
}

func newSFParser(v string) (*sfParser, error) {
	for i := 0; i < len(v); i++ {
		if v[i] > 0x7e || (v[i] < 0x20 && v[i] != '\t') {
			return nil, fmt.Errorf("headers: structured field %q: non-ASCII or control byte at offset %d: %w", excerpt(v), i, ErrSyntax)
		}
	}
	p := &sfParser{s: v}
	p.skipSP()
	p.s = strings.TrimRight(p.s, " ")
	return p, nil
}

func (p *sfParser) errorf(format string, a ...any) error {
	return fmt.Errorf("headers: structured field %q: %s at offset %d: %w", excerpt(p.s), fmt.Sprintf(format, a...), p.i, ErrSyntax)
}

func (p *sfParser) empty() bool { return p.i >= len(p.s) }

func (p *sfParser) peek() byte {
	if p.empty() {
		return 0
	}
	return p.s[p.i]
}

func (p *sfParser) skipSP() {
	for p.peek() == ' ' {
		p.i++
	}
}

func (p *sfParser) skipOWS() {
	for c := p.peek(); c == ' ' || c == '\t'; c = p.peek() {
		p.i++
	}
}

func (p *sfParser) end() error {
	if !p.empty() {
		return p.errorf("unexpected %q after the value", p.s[p.i])
	}
	return nil
}

// nextMember consumes the separator after a List or Dictionary member and
// reports whether the input ended.
func (p *sfParser) nextMember() (bool, error) {
	p.skipOWS()
	if p.empty() {
		return true, nil
	}
	if p.s[p.i] != ',' {
		return false, p.errorf("expected ',' between members, found %q", p.s[p.i])
	}
	p.i++
	p.skipOWS()
	if p.empty() {
		return false, p.errorf("trailing comma")
	}
	return false, nil
}

func (p *sfParser) member() (Member, error) {
	if p.peek() != '(' {
		it, err := p.item()
		return Member{Item: it}, err
	}
	p.i++
	m := Member{IsInner: true}
	for !p.empty() {
		p.skipSP()
		if p.peek() == ')' {
			p.i++
			var err error
			m.Params, err = p.params()
			return m, err
		}
		it, err := p.item()
		if err != nil {
			return Member{}, err
		}
		if len(m.Inner) == MaxSFInnerItems {
			return Member{}, p.errorf("more than %d items in an inner list", MaxSFInnerItems)
		}
		m.Inner = append(m.Inner, it)
		if c := p.peek(); c != ' ' && c != ')' {
			return Member{}, p.errorf("expected SP or ')' in an inner list")
		}
	}
	return Member{}, p.errorf("inner list not closed")
}

func (p *sfParser) item() (Item, error) {
	v, err := p.bareItem()
	if err != nil {
		return Item{}, err
	}
	ps, err := p.params()
	return Item{Value: v, Params: ps}, err
}

func (p *sfParser) params() (Params, error) {
	var ps Params
	var seen keyIndex
	for n := 0; p.peek() == ';'; n++ {
		if n == MaxSFParams {
			return nil, p.errorf("more than %d parameters", MaxSFParams)
		}
		p.i++
		p.skipSP()
		k, err := p.key()
		if err != nil {
			return nil, err
		}
		var v any = true
		if p.peek() == '=' {
			p.i++
			if v, err = p.bareItem(); err != nil {
				return nil, err
			}
		}
		if i, ok := seen.add(k, len(ps)); ok {
			ps[i].Value = v
		} else {
			ps = append(ps, Param{Key: k, Value: v})
		}
	}
	return ps, nil
}

func (p *sfParser) key() (string, error) {
	start := p.i
	if c := p.peek(); !isLCAlpha(c) && c != '*' {
		return "", p.errorf("a key must start with a lower-case letter or '*'")
	}
	for p.i++; !p.empty() && isKeyChar(p.s[p.i]); p.i++ {
	}
	return p.s[start:p.i], nil
}
