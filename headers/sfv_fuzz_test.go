package headers

import (
	"errors"
	"reflect"
	"testing"
)

// FuzzParseSF: each structured-field parser either fails with ErrSyntax or
// returns a value that serializes, and the serialization parses back to
// the same value (RFC 9651 §4: parse ∘ serialize is the identity).
func FuzzParseSF(f *testing.F) {
	for _, s := range []string{
		`42`, `-1.123`, `"foo \"bar\""`, `a_b-c.d3:f%00/*`, `:aGVsbG8:`, `?1`, `@1659578233`, `%"f%c3%bc"`,
		`1;a=1;b=2;a=3`, `(1 2);x, ()`, `a=1, b;c, a=(x "y");z=?0`, `1.`, `"\a"`, `(`, `1;`, `a, `,
		manyParams(MaxSFParams + 1), manyMembers(8),
	} {
		f.Add(uint8(0), s)
		f.Add(uint8(1), s)
		f.Add(uint8(2), s)
	}
	f.Fuzz(func(t *testing.T, kind uint8, v string) {
		type codec struct {
			parse     func(string) (any, error)
			serialize func(any) (string, error)
		}
		codecs := []codec{
			{func(s string) (any, error) { return ParseItem(s) }, func(x any) (string, error) { return SerializeItem(x.(Item)) }},
			{func(s string) (any, error) { return ParseList(s) }, func(x any) (string, error) { return SerializeList(x.([]Member)) }},
			{func(s string) (any, error) { return ParseDictionary(s) }, func(x any) (string, error) { return SerializeDictionary(x.(Dictionary)) }},
		}
		c := codecs[int(kind)%len(codecs)]
		got, err := c.parse(v)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("parse(%q) error %v does not wrap ErrSyntax", v, err)
			}
			return
		}
		s, err := c.serialize(got)
		if err != nil {
			t.Fatalf("parse(%q) = %#v does not serialize: %v", v, got, err)
		}
		back, err := c.parse(s)
		if err != nil || !reflect.DeepEqual(back, got) {
			t.Fatalf("parse(%q) = %#v serializes as %q, which parses as %#v, %v", v, got, s, back, err)
		}
	})
}
