package expect

import "testing"

func TestLoadVerdicts_run(t *testing.T) {
	tests := []struct {
		name, body string
		ok         bool
	}{
		{"every check", "service: s\nchecks:\n  IK-03: {expect: pass, why: a}\n  IK-05: {expect: pass, why: b}\n  RL-08: {expect: fail, why: c}\n", true},
		{"missing one", "service: s\nchecks:\n  IK-03: {expect: pass, why: a}\n", false},
		{"its run list", "service: s\nrun: [IK-03]\nchecks:\n  IK-03: {expect: pass, why: a}\n", true},
		{"one outside the run", "service: s\nrun: [IK-03]\nchecks:\n  IK-03: {expect: pass, why: a}\n  IK-05: {expect: pass, why: b}\n", false},
		{"one of the run missing", "service: s\nrun: [IK-03, IK-05]\nchecks:\n  IK-03: {expect: pass, why: a}\n", false},
		{"runs a non-check", "service: s\nrun: [XX-01]\nchecks:\n  XX-01: {expect: pass, why: a}\n", false},
	}
	for _, tt := range tests {
		_, err := LoadVerdicts(write(t, t.TempDir(), tt.body), ids)
		if (err == nil) != tt.ok {
			t.Errorf("%s: LoadVerdicts = %v, want ok %v", tt.name, err, tt.ok)
		}
	}
}
