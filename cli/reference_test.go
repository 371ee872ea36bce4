package cli

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
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

// TestReferenceOpts_parse_defectEnv: a component in a container takes its
// defects from $RESILCHECK_DEFECT (examples/compose/compose.defect.yaml);
// --defect wins over it.
func TestReferenceOpts_parse_defectEnv(t *testing.T) {
	cases := []struct {
		name, env string
		flags     []string
		want      string // the set's names, comma-separated; "error" for a refusal
		said      string // what stderr must say; "" for nothing
	}{
		{"env alone", "no-jitter,racy-idempotency", nil, "no-jitter,racy-idempotency", "defects from $RESILCHECK_DEFECT: no-jitter, racy-idempotency"},
		{"the flag wins", "no-jitter", []string{"no-downstream-key"}, "no-downstream-key", ""},
		{"neither", "", nil, "", ""},
		{"an unknown name is refused", "typo", nil, "error", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(defectEnv, c.env)
			o := &referenceOpts{defects: c.flags}
			var stderr strings.Builder
			set, _, _, err := o.parse(&stderr)
			got := strings.Join(set.Names(), ",")
			if err != nil {
				got = "error"
				if !strings.Contains(err.Error(), "$RESILCHECK_DEFECT") || !errors.As(err, new(*defect.UnknownError)) {
					t.Errorf("parse() error %q does not blame $RESILCHECK_DEFECT as an unknown defect", err)
				}
			}
			if got != c.want {
				t.Errorf("parse() = %q (%v); want %q", got, err, c.want)
			}
			if said := stderr.String(); (c.said == "") != (said == "") || !strings.Contains(said, c.said) {
				t.Errorf("parse() said %q; want %q", said, c.said)
			}
		})
	}
}
