package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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

func TestExitCode(t *testing.T) {
	t.Parallel()
	cases := []struct {
		err  error
		want int
	}{
		{nil, exitPass},
		{usagef("bad"), exitUsage},
		{fmt.Errorf("wrapped: %w", usagef("bad")), exitUsage},
		{withCode(exitFail, errors.New("2 checks failed")), exitFail},
		{fmt.Errorf("x: %w", context.Canceled), exitInterrupted},
		{errors.New("surprise"), exitInternal},
	}
	for _, c := range cases {
		if got := exitCode(c.err); got != c.want {
			t.Errorf("exitCode(%v) = %d; want %d", c.err, got, c.want)
		}
	}
}
