package expect

import (
	"errors"
	"slices"
	"testing"

	"github.com/resilcheck/resilcheck/reports"
)

func TestLoadTarget(t *testing.T) {
	variants := write(t, t.TempDir(), `target: x
versions: {lib: "1.2"}
variants:
  - name: broken
    break: no-key
    must_fail: {IK-03: broken}
  - name: plain
    run: [IK-03, IK-05]
    may_fail: {IK-05: racy}
`)
	verdicts := write(t, t.TempDir(), `service: y
seed: 10
checks:
  IK-03: {expect: fail, why: a, tier: gateway}
  IK-05: {expect: not-applicable, why: b}
  RL-08: {expect: fail, why: c, tier: cannot tell}
`)
	subset := write(t, t.TempDir(), `service: z
run: [IK-05]
checks:
  IK-05: {expect: pass, why: b}
`)
	tests := []struct {
		path, name string
		run        []string
		want       map[string][]reports.Status
	}{
		{variants, "x", []string{"IK-03", "IK-05"}, map[string][]reports.Status{
			"IK-03": {reports.StatusPass}, "IK-05": {reports.StatusPass, reports.StatusFail}, "RL-08": {reports.StatusPass}}},
		{verdicts, "y", nil, map[string][]reports.Status{
			"IK-03": {reports.StatusFail}, "IK-05": {reports.StatusNotApplicable}, "RL-08": {reports.StatusFail}}},
		{subset, "z", []string{"IK-05"}, map[string][]reports.Status{"IK-05": {reports.StatusPass}}},
	}
	for _, tt := range tests {
		got, err := LoadTarget(tt.path, ids)
		if err != nil {
			t.Fatal(err)
		}
		if got.Name != tt.name || !slices.Equal(got.Run, tt.run) {
			t.Errorf("%s: name %q run %v; want %q %v", tt.path, got.Name, got.Run, tt.name, tt.run)
		}
		for id, want := range tt.want {
			if a := got.Want(id).Allowed; !slices.Equal(a, want) {
				t.Errorf("%s %s: allowed %v, want %v", tt.name, id, a, want)
			}
		}
	}
	if got, _ := LoadTarget(variants, ids); got.Versions["lib"] != "1.2" || got.Seed != 0 {
		t.Errorf("versions %v, seed %d", got.Versions, got.Seed)
	}
	if got, _ := LoadTarget(verdicts, ids); got.Seed != 10 {
		t.Errorf("seed %d, want the 10 the verdicts were decided at", got.Seed)
	}
}

func TestLoadTarget_noPlainVariant(t *testing.T) {
	p := write(t, t.TempDir(), "target: x\nvariants:\n  - name: a\n    break: b\n")
	if _, err := LoadTarget(p, ids); !errors.Is(err, ErrNoPlainVariant) {
		t.Fatalf("err = %v, want ErrNoPlainVariant", err)
	}
}

func TestWant_Agrees(t *testing.T) {
	fail := []reports.Status{reports.StatusFail}
	tests := []struct {
		name   string
		want   Want
		status reports.Status
		tier   string
		agrees bool
	}{
		{"pass expected", Want{Allowed: []reports.Status{reports.StatusPass}}, reports.StatusPass, "", true},
		{"fail where pass", Want{Allowed: []reports.Status{reports.StatusPass}}, reports.StatusFail, "", false},
		{"may fail", Want{Allowed: []reports.Status{reports.StatusPass, reports.StatusFail}}, reports.StatusFail, "x", true},
		{"tier not judged", Want{Allowed: fail}, reports.StatusFail, "gateway", true},
		{"right tier", Want{Allowed: fail, Tier: "gateway"}, reports.StatusFail, "gateway", true},
		{"wrong tier", Want{Allowed: fail, Tier: "gateway"}, reports.StatusFail, "service", false},
		{"cannot tell, none named", Want{Allowed: fail, Tier: CannotTell}, reports.StatusFail, "", true},
		{"cannot tell, one named", Want{Allowed: fail, Tier: CannotTell}, reports.StatusFail, "service", false},
		{"inconclusive where fail", Want{Allowed: fail, Tier: "gateway"}, reports.StatusInconclusive, "", false},
	}
	for _, tt := range tests {
		if got := tt.want.Agrees(tt.status, tt.tier); got != tt.agrees {
			t.Errorf("%s: Agrees(%s, %q) = %v, want %v", tt.name, tt.status, tt.tier, got, tt.agrees)
		}
	}
}
