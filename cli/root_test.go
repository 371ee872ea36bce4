package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestRun_ExitCodes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"version", []string{"version"}, exitPass, "resilcheck "},
		{"unknown command", []string{"bogus"}, exitUsage, ""},
		{"unknown flag", []string{"version", "--nope"}, exitUsage, ""},
		{"extra argument", []string{"version", "x"}, exitUsage, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			code := run(context.Background(), c.args, &out, &errb)
			if code != c.code || !strings.Contains(out.String(), c.out) {
				t.Errorf("run(%q) = %d, stdout %q, stderr %q; want %d containing %q",
					c.args, code, out.String(), errb.String(), c.code, c.out)
			}
		})
	}
}
