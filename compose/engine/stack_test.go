package engine

import (
	"strings"
	"testing"

	"github.com/resilcheck/resilcheck/internal/launch"
)

func TestLastBytes(t *testing.T) {
	cases := []struct {
		name   string
		writes []string
		want   func(string) bool
	}{
		{"short logs stay whole", []string{"a\n", "b\n"}, func(s string) bool { return s == "a\nb\n" }},
		{"long logs keep their end", []string{strings.Repeat("x", 3*launch.MaxLogBytes), "the end\n"}, func(s string) bool {
			return strings.HasPrefix(s, "[earlier output dropped]\n") && strings.HasSuffix(s, "the end\n") &&
				len(s) == len("[earlier output dropped]\n")+launch.MaxLogBytes
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var l lastBytes
			for _, w := range c.writes {
				_, _ = l.Write([]byte(w))
			}
			if got := l.String(); !c.want(got) {
				t.Errorf("String() = %.80q… (%d bytes)", got, len(got))
			}
		})
	}
}
