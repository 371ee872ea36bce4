package targets

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// testChecks are the checks waivers in testdata may name.
var testChecks = WithChecks([]string{"IK-07", "RL-07"})

func TestLoad_gate(t *testing.T) {
	t.Parallel()
	tg, err := Load("testdata/good/gate.yaml", testChecks)
	if err != nil {
		t.Fatal(err)
	}
	want := Gate{FailOn: "should", Waivers: []Waiver{{Check: "RL-07",
		Reason: "legacy reset header until the migration (PAY-123)", Expires: "2026-12-31"}}}
	if !reflect.DeepEqual(tg.Gate, want) {
		t.Errorf("Load(gate.yaml).Gate = %+v; want %+v (an unquoted date stays YYYY-MM-DD)", tg.Gate, want)
	}
}

// TestTarget_Validate_waiverCheck: the checks a waiver may name are the ones
// given with WithChecks; without them (or with none) any ID of the right
// shape passes, whatever else the program links.
func TestTarget_Validate_waiverCheck(t *testing.T) {
	t.Parallel()
	const unknown = `gate.waivers[0].check: unknown check "XX-99"; resilcheck checks lists the IDs`
	const shape = `gate.waivers[0].check: expected a check ID such as RL-07, got "RL07"`
	cases := []struct {
		name  string
		check string
		opts  []Option
		want  string // a problem the error contains; empty = valid
	}{
		{"no checks given: a well-formed ID", "XX-99", nil, ""},
		{"no checks given: a malformed ID", "RL07", nil, shape},
		{"no IDs given: as without the option", "XX-99", []Option{WithChecks(nil)}, ""},
		{"a given check", "RL-07", []Option{testChecks}, ""},
		{"a given check, in another case", "rl-07", []Option{testChecks}, ""},
		{"a check not given", "XX-99", []Option{testChecks}, unknown},
		{"a malformed ID not given", "RL07", []Option{testChecks}, `unknown check "RL07"`},
		{"several WithChecks add up", "IK-07", []Option{WithChecks([]string{"RL-07"}), WithChecks([]string{"IK-07"})}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tg := &Target{
				Service:      Service{URL: "http://127.0.0.1:8080"},
				Operations:   []Operation{{Name: "op", Path: "/op"}},
				Dependencies: []Dependency{{Name: "dep", Listen: "127.0.0.1:9091"}},
				Effects:      Effects{Ledger: Ledger{Dependency: "dep"}},
				Gate:         Gate{Waivers: []Waiver{{Check: c.check, Reason: "r", Expires: "2099-12-31"}}},
			}
			err := tg.Validate(c.opts...)
			var se *SpecError
			switch {
			case c.want == "" && err != nil:
				t.Errorf("Validate() = %v; want nil", err)
			case c.want != "" && (!errors.As(err, &se) || !strings.Contains(err.Error(), c.want)):
				t.Errorf("Validate() = %v; want a *SpecError containing %q", err, c.want)
			}
		})
	}
}
