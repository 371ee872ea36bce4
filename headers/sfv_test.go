package headers

import (
	"errors"
	"reflect"
	"testing"

	"pgregory.net/rapid"
)

// Cases follow RFC 9651 §4.2 and the httpwg structured-field-tests corpus.
func TestParseItem(t *testing.T) {
	t.Parallel()
	ok := []struct {
		in   string
		want Item
	}{
		{"42", Item{Value: int64(42)}},
		{"-42", Item{Value: int64(-42)}},
		{"0042", Item{Value: int64(42)}},
		{"-0", Item{Value: int64(0)}},
		{"999999999999999", Item{Value: int64(999999999999999)}},
		{"-999999999999999", Item{Value: int64(-999999999999999)}},
		{"  42  ", Item{Value: int64(42)}},
		{"1.5", Item{Value: 1.5}},
		{"-1.123", Item{Value: -1.123}},
		{"123456789012.123", Item{Value: 123456789012.123}},
		{`"foo \"bar\" \\"`, Item{Value: `foo "bar" \`}},
		{`""`, Item{Value: ""}},
		{"a_b-c.d3:f%00/*", Item{Value: Token("a_b-c.d3:f%00/*")}},
		{"*foo", Item{Value: Token("*foo")}},
		{"Foo", Item{Value: Token("Foo")}},
		{":aGVsbG8=:", Item{Value: []byte("hello")}},
		{":aGVsbG8:", Item{Value: []byte("hello")}},  // padding omitted: SHOULD NOT fail
		{":aGVsbG9=:", Item{Value: []byte("hello")}}, // non-zero pad bits: SHOULD NOT fail
		{"::", Item{Value: []byte{}}},
		{"?1", Item{Value: true}},
		{"?0", Item{Value: false}},
		{"@1659578233", Item{Value: Date(1659578233)}},
		{"@-1659578233", Item{Value: Date(-1659578233)}},
		{`%"f%c3%bc%c3%bc"`, Item{Value: DisplayString("füü")}},
		{`%"This is intended for display to %c3%bcsers."`, Item{Value: DisplayString("This is intended for display to üsers.")}},
		{"1;a=2;b", Item{Value: int64(1), Params: Params{{"a", int64(2)}, {"b", true}}}},
		{"1; a=2", Item{Value: int64(1), Params: Params{{"a", int64(2)}}}},
		{"1;a=1;b=2;a=3", Item{Value: int64(1), Params: Params{{"a", int64(3)}, {"b", int64(2)}}}},
		{`"x";q=:AAE=:;w="s"`, Item{Value: "x", Params: Params{{"q", []byte{0, 1}}, {"w", "s"}}}},
	}
	for _, c := range ok {
		got, err := ParseItem(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseItem(%q) = %#v, %v; want %#v", c.in, got, err, c.want)
		}
	}
	bad := []string{
		"", "   ", "1000000000000000", "-1000000000000000", "- 42", "+42", "-", "1.", "1.1234",
		"1234567890123.0", "1..2", ".5", `"foo`, `"\a"`, `"é"`, "\"a\tb\"", "1foo", "foo,bar",
		":aGVsbG8=", ":aGVsb G8=:", ":aGVsbG8=!:", ":aGVsbG8===:", ":a:", "?", "?2", "?Ta", "@1659578233.12",
		"@", `%"f%C3%BC"`, `%"%ff"`, `%"foo`, `%foo`, `%"%c"`, "1;A=2", "1;=2", "1 ;a=2", "1;a=", "\t42", "(1 2)", "1, 2",
	}
	for _, in := range bad {
		if got, err := ParseItem(in); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseItem(%q) = %#v, %v; want ErrSyntax", in, got, err)
		}
	}
}

func TestParseList(t *testing.T) {
	t.Parallel()
	i := func(v any, ps ...Param) Member { return Member{Item: Item{Value: v, Params: ps}} }
	ok := []struct {
		in   string
		want []Member
	}{
		{"", nil},
		{"1, 42", []Member{i(int64(1)), i(int64(42))}},
		{"1,42", []Member{i(int64(1)), i(int64(42))}},
		{"1 , 42", []Member{i(int64(1)), i(int64(42))}},
		{"1,\t42", []Member{i(int64(1)), i(int64(42))}},
		{`"a";q=1, b`, []Member{i("a", Param{"q", int64(1)}), i(Token("b"))}},
		{"(1 2);a, ()", []Member{
			{Inner: []Item{{Value: int64(1)}, {Value: int64(2)}}, IsInner: true, Item: Item{Params: Params{{"a", true}}}},
			{IsInner: true},
		}},
		{"( 1  2 )", []Member{{Inner: []Item{{Value: int64(1)}, {Value: int64(2)}}, IsInner: true}}},
	}
	for _, c := range ok {
		got, err := ParseList(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseList(%q) = %#v, %v; want %#v", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"1, 42,", "1,,42", ",1", "1 42", "(1\t2)", "(1 2", "(1,2)", "1;a 2", "a=1"} {
		if got, err := ParseList(in); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseList(%q) = %#v, %v; want ErrSyntax", in, got, err)
		}
	}
}

func TestParseDictionary(t *testing.T) {
	t.Parallel()
	ok := []struct {
		in   string
		want Dictionary
	}{
		{"", nil},
		{"a=1, b=2", Dictionary{{"a", Member{Item: Item{Value: int64(1)}}}, {"b", Member{Item: Item{Value: int64(2)}}}}},
		{"a=1, b=2, a=3", Dictionary{{"a", Member{Item: Item{Value: int64(3)}}}, {"b", Member{Item: Item{Value: int64(2)}}}}},
		{"a, b;x=1", Dictionary{{"a", Member{Item: Item{Value: true}}}, {"b", Member{Item: Item{Value: true, Params: Params{{"x", int64(1)}}}}}}},
		{"limit=100, remaining=50, reset=5", Dictionary{
			{"limit", Member{Item: Item{Value: int64(100)}}},
			{"remaining", Member{Item: Item{Value: int64(50)}}},
			{"reset", Member{Item: Item{Value: int64(5)}}}}},
		{"a=(1 2)", Dictionary{{"a", Member{Inner: []Item{{Value: int64(1)}, {Value: int64(2)}}, IsInner: true}}}},
	}
	for _, c := range ok {
		got, err := ParseDictionary(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseDictionary(%q) = %#v, %v; want %#v", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"A=1", "a=1,", "a=", "=1", `"a"=1`, "a=1 b=2", "1=a"} {
		if got, err := ParseDictionary(in); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseDictionary(%q) = %#v, %v; want ErrSyntax", in, got, err)
		}
	}
}

func TestSerializeItem(t *testing.T) {
	t.Parallel()
	ok := []struct {
		in   Item
		want string
	}{
		{Item{Value: 1.0}, "1.0"},
		{Item{Value: 1.0005}, "1.0"},   // rounds half to even at 3 digits
		{Item{Value: -2.5e-4}, "-0.0"}, // sign kept as RFC 9651 §4.1.5 writes it
		{Item{Value: 12.3456}, "12.346"},
		{Item{Value: true, Params: Params{{"a", true}, {"b", false}}}, "?1;a;b=?0"},
		{Item{Value: DisplayString(`50% "off" ü`)}, `%"50%25 %22off%22 %c3%bc"`},
		{Item{Value: []byte("hello")}, ":aGVsbG8=:"},
		{Item{Value: Date(0)}, "@0"},
	}
	for _, c := range ok {
		if got, err := SerializeItem(c.in); err != nil || got != c.want {
			t.Errorf("SerializeItem(%#v) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, in := range []Item{
		{Value: int64(1e15)}, {Value: 1e12}, {Value: "é"}, {Value: Token("1a")}, {Value: Token("a b")},
		{Value: 3}, {Value: int64(1), Params: Params{{"A", true}}}, {Value: DisplayString("\xff")},
	} {
		if got, err := SerializeItem(in); !errors.Is(err, ErrSyntax) {
			t.Errorf("SerializeItem(%#v) = %q, %v; want ErrSyntax", in, got, err)
		}
	}
}

// TestSFV_RoundTrip: any value the generators build serializes, and parsing
// the text gives the value back; serializing again gives the same text.
func TestSFV_RoundTrip(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		switch rapid.IntRange(0, 2).Draw(t, "kind") {
		case 0:
			it := genItem().Draw(t, "item")
			s, err := SerializeItem(it)
			if err != nil {
				t.Fatalf("SerializeItem: %v", err)
			}
			got, err := ParseItem(s)
			if err != nil || !reflect.DeepEqual(got, it) {
				t.Fatalf("ParseItem(%q) = %#v, %v; want %#v", s, got, err, it)
			}
		case 1:
			l := rapid.SliceOfN(genMember(), 1, 4).Draw(t, "list")
			s, err := SerializeList(l)
			if err != nil {
				t.Fatalf("SerializeList: %v", err)
			}
			got, err := ParseList(s)
			if err != nil || !reflect.DeepEqual(got, l) {
				t.Fatalf("ParseList(%q) = %#v, %v; want %#v", s, got, err, l)
			}
		default:
			keys := rapid.SliceOfNDistinct(genKey(), 1, 4, rapid.ID).Draw(t, "keys")
			var d Dictionary
			for i, k := range keys {
				d = append(d, DictEntry{Key: k, Member: genMember().Draw(t, "member"+string(rune('0'+i)))})
			}
			s, err := SerializeDictionary(d)
			if err != nil {
				t.Fatalf("SerializeDictionary: %v", err)
			}
			got, err := ParseDictionary(s)
			if err != nil || !reflect.DeepEqual(got, d) {
				t.Fatalf("ParseDictionary(%q) = %#v, %v; want %#v", s, got, err, d)
			}
			if s2, _ := SerializeDictionary(got); s2 != s {
				t.Fatalf("re-serialized %q, first %q", s2, s)
			}
		}
	})
}

// TestParseList_NeverPanics feeds near-grammar noise: the parser either
// fails with ErrSyntax or returns a value that serializes and re-parses.
func TestParseList_NeverPanics(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringOf(rapid.SampledFrom([]rune(`a1-.;=,()"\: ?*@%%9 tx`))).Draw(t, "s")
		l, err := ParseList(s)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("ParseList(%q): error %v does not wrap ErrSyntax", s, err)
			}
			return
		}
		out, err := SerializeList(l)
		if err != nil {
			t.Fatalf("SerializeList(ParseList(%q)): %v", s, err)
		}
		if again, err := ParseList(out); err != nil || !reflect.DeepEqual(again, l) {
			t.Fatalf("ParseList(%q) = %#v, %v; want %#v", out, again, err, l)
		}
	})
}

func genKey() *rapid.Generator[string] { return rapid.StringMatching(`[a-z*][a-z0-9_\-.*]{0,6}`) }

func genBare() *rapid.Generator[any] {
	return rapid.OneOf(
		rapid.Map(rapid.Int64Range(-maxSFInteger, maxSFInteger), func(n int64) any { return n }),
		rapid.Map(rapid.Int64Range(-maxSFInteger, maxSFInteger), func(n int64) any { return float64(n) / 1000 }),
		rapid.Map(rapid.StringMatching(`[ -~]{0,12}`), func(s string) any { return s }),
		rapid.Map(rapid.StringMatching(`[A-Za-z*][A-Za-z0-9!#$%&'*+\-.^_`+"`"+`|~:/]{0,8}`), func(s string) any { return Token(s) }),
		rapid.Map(rapid.SliceOfN(rapid.Byte(), 0, 12), func(b []byte) any {
			if b == nil {
				b = []byte{}
			}
			return b
		}),
		rapid.Map(rapid.Bool(), func(b bool) any { return b }),
		rapid.Map(rapid.Int64Range(-maxSFInteger, maxSFInteger), func(n int64) any { return Date(n) }),
		rapid.Map(rapid.String(), func(s string) any { return DisplayString(s) }),
	)
}

func genParams() *rapid.Generator[Params] {
	return rapid.Custom(func(t *rapid.T) Params {
		keys := rapid.SliceOfNDistinct(genKey(), 0, 3, rapid.ID).Draw(t, "pkeys")
		var ps Params
		for _, k := range keys {
			ps = append(ps, Param{Key: k, Value: genBare().Draw(t, "pv")})
		}
		return ps
	})
}

func genItem() *rapid.Generator[Item] {
	return rapid.Custom(func(t *rapid.T) Item {
		return Item{Value: genBare().Draw(t, "v"), Params: genParams().Draw(t, "ps")}
	})
}

func genMember() *rapid.Generator[Member] {
	return rapid.Custom(func(t *rapid.T) Member {
		if !rapid.Bool().Draw(t, "inner") {
			return Member{Item: genItem().Draw(t, "item")}
		}
		var items []Item
		for range rapid.IntRange(0, 3).Draw(t, "n") {
			items = append(items, genItem().Draw(t, "it"))
		}
		return Member{Inner: items, IsInner: true, Item: Item{Params: genParams().Draw(t, "lps")}}
	})
}
