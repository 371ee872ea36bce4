package targets

import (
	"reflect"
	"testing"
)

// FuzzCountPath: a path that parses prints as text that parses to the same
// path, and reading a count from any body never yields a negative count.
func FuzzCountPath(f *testing.F) {
	for _, c := range [][2]string{
		{"$.count", `{"count": 3}`},
		{"$.data[0].n", `{"data": [{"n": 7}]}`},
		{"$.items", `{"items": [1, 2, 3]}`},
		{"$.1", `[0, 5]`},
		{"", `4`},
		{"$[", `[]`},
		{"$.a..b", `{}`},
		{"$[-1]", `[1]`},
		{"$.n", `{"n": -2}`},
		{"$.n", `{"n": 1e3}`},
		{"$.n", `{"n": 99999999999999999999}`},
		{"count", `not json`},
	} {
		f.Add(c[0], []byte(c[1]))
	}
	f.Fuzz(func(t *testing.T, path string, body []byte) {
		p, err := ParseCountPath(path)
		if err != nil {
			return
		}
		again, err := ParseCountPath(p.String())
		if err != nil || !reflect.DeepEqual(again.segs, p.segs) {
			t.Fatalf("ParseCountPath(%q) prints as %q, which parses as %#v, %v; want %#v", path, p.String(), again.segs, err, p.segs)
		}
		if n, err := p.Count(body); err == nil && n < 0 {
			t.Fatalf("%s.Count(%q) = %d", p, body, n)
		}
	})
}
