package main

import (
	"context"
	"strings"
	"testing"
)

func TestReferenceCmd(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"defects lists the matrix", []string{"reference", "defects"}, exitPass, "racy-idempotency"},
		{"a defect's checks", []string{"reference", "defects"}, exitPass, "IK-07 (IK-17p)"},
		{"unknown defect", []string{"reference", "--defect", "typo"}, exitUsage, "valid defects"},
		{"bad store", []string{"reference", "--store", "mysql://db"}, exitUsage, "bad store URL"},
		{"bad rate limit", []string{"reference", "--rate-limit", "0"}, exitUsage, "--rate-limit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			code, out, errs := runCLI(context.Background(), c.args...)
			if code != c.code || !strings.Contains(out+errs, c.want) {
				t.Errorf("%q = %d, output %q; want %d mentioning %q", c.args, code, out+errs, c.code, c.want)
			}
		})
	}
}
