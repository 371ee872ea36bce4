package targets

import (
	"strings"
	"testing"
)

func TestCountPath_Count(t *testing.T) {
	t.Parallel()
	cases := []struct {
		path, body string
		want       int
		err        string // substring of the error; "" = no error
	}{
		{"", `3`, 3, ""},
		{"$", `[1,2]`, 2, ""},
		{"$.count", `{"count": 1}`, 1, ""},
		{"$.data[0].n", `{"data": [{"n": 4}]}`, 4, ""},
		{"$.data.1", `{"data": [0, 7]}`, 7, ""},
		{"$.items", `{"items": []}`, 0, ""},
		{"$.count", `{"total": 1}`, 0, "nothing at $.count"},
		{"$.count", `{"count": 1.5}`, 0, "want a non-negative integer"},
		{"$.count", `{"count": -1}`, 0, "want a non-negative integer"},
		{"$.count", `{"count": "1"}`, 0, "neither a number nor an array"},
		{"$[3]", `[1]`, 0, "nothing at $[3]"},
		{"$.count", `<html>`, 0, "not JSON"},
	}
	for _, c := range cases {
		p, err := ParseCountPath(c.path)
		if err != nil {
			t.Fatalf("ParseCountPath(%q) = %v", c.path, err)
		}
		got, err := p.Count([]byte(c.body))
		if c.err == "" && (err != nil || got != c.want) || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%q.Count(%s) = %d, %v; want %d, error containing %q", c.path, c.body, got, err, c.want, c.err)
		}
	}
}

func TestParseCountPath_errors(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"count", "$count", "$.", "$[", "$[x]", "$[-1]", "$..a"} {
		if _, err := ParseCountPath(s); err == nil {
			t.Errorf("ParseCountPath(%q) succeeded; want an error", s)
		}
	}
}
