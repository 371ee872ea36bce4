package reports

import (
	"slices"
	"testing"
	"time"
)

var gateDay = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestReport_ApplyGate(t *testing.T) {
	t.Parallel()
	check := func(id string, l Level, s Status, ch Change) Check {
		return Check{ID: id, Suite: "s", Level: l, Status: s, Change: ch}
	}
	tests := []struct {
		name    string
		checks  []Check
		gate    Gate
		want    Verdict
		outcome map[string]GateOutcome
		waivers []WaiverState
	}{
		{name: "default gate fails on a convention",
			checks: []Check{check("A-1", LevelConvention, StatusFail, "")},
			want:   VerdictFail, outcome: map[string]GateOutcome{"A-1": GateCounted}},
		{name: "must gate lets a SHOULD failure through",
			checks: []Check{check("A-1", LevelShould, StatusFail, ""), check("A-2", LevelMust, StatusPass, "")},
			gate:   Gate{FailOn: LevelMust}, want: VerdictPass, outcome: map[string]GateOutcome{"A-1": GateBelow}},
		{name: "must gate counts MUST NOT",
			checks: []Check{check("A-1", LevelMustNot, StatusFail, "")},
			gate:   Gate{FailOn: LevelMust}, want: VerdictFail, outcome: map[string]GateOutcome{"A-1": GateCounted}},
		{name: "a check without a level gates like MUST",
			checks: []Check{check("A-1", "", StatusFail, "")},
			gate:   Gate{FailOn: LevelMust}, want: VerdictFail, outcome: map[string]GateOutcome{"A-1": GateCounted}},
		{name: "should gate ignores an inconclusive recommendation",
			checks: []Check{check("A-1", LevelRecommended, StatusInconclusive, "")},
			gate:   Gate{FailOn: LevelShould}, want: VerdictPass, outcome: map[string]GateOutcome{"A-1": GateBelow}},
		{name: "a waiver in force accepts the failure",
			checks: []Check{check("A-1", LevelMust, StatusFail, "")},
			gate:   Gate{Waivers: []Waiver{{Check: "a-1", Reason: "r", Expires: "2026-03-01"}}},
			want:   VerdictPass, outcome: map[string]GateOutcome{"A-1": GateWaived}, waivers: []WaiverState{WaiverApplied}},
		{name: "an expired waiver no longer waives",
			checks: []Check{check("A-1", LevelMust, StatusFail, "")},
			gate:   Gate{Waivers: []Waiver{{Check: "A-1", Reason: "r", Expires: "2026-02-28"}}},
			want:   VerdictFail, outcome: map[string]GateOutcome{"A-1": GateCounted}, waivers: []WaiverState{WaiverExpired}},
		{name: "unused and not-run waivers",
			checks: []Check{check("A-1", LevelMust, StatusPass, "")},
			gate: Gate{Waivers: []Waiver{{Check: "A-1", Reason: "r", Expires: "2027-01-01"},
				{Check: "B-9", Reason: "r", Expires: "2027-01-01"}}},
			want: VerdictPass, waivers: []WaiverState{WaiverUnused, WaiverNotRun}},
		{name: "new-only gate passes a failure the baseline had",
			checks: []Check{check("A-1", LevelMust, StatusFail, ChangeUnchanged)},
			gate:   Gate{NewOnly: true}, want: VerdictPass, outcome: map[string]GateOutcome{"A-1": GateKnown}},
		{name: "new-only gate fails a new failure",
			checks: []Check{check("A-1", LevelMust, StatusFail, ChangeUnchanged), check("A-2", LevelMust, StatusFail, ChangeNew)},
			gate:   Gate{NewOnly: true}, want: VerdictFail,
			outcome: map[string]GateOutcome{"A-1": GateKnown, "A-2": GateCounted}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := &Report{Checks: tt.checks}
			r.ApplyGate(tt.gate, gateDay)
			if r.Verdict != tt.want {
				t.Errorf("ApplyGate(%+v): verdict %s; want %s", tt.gate, r.Verdict, tt.want)
			}
			for _, c := range r.Checks {
				if c.Gate != tt.outcome[c.ID] {
					t.Errorf("ApplyGate(%+v): %s gate %q; want %q", tt.gate, c.ID, c.Gate, tt.outcome[c.ID])
				}
			}
			for i, s := range tt.waivers {
				if got := r.Gate.Waivers[i].State; got != s {
					t.Errorf("ApplyGate(%+v): waiver %d state %q; want %q", tt.gate, i, got, s)
				}
			}
			if r.Gate.FailOn == "" {
				t.Errorf("ApplyGate recorded no fail_on")
			}
		})
	}
}

func TestReport_CompareBaseline(t *testing.T) {
	t.Parallel()
	st := func(pairs ...string) []Check {
		var out []Check
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, Check{ID: pairs[i], Status: Status(pairs[i+1])})
		}
		return out
	}
	base := &Report{Target: Target{Name: "svc"}, Checks: st("A-1", "fail", "A-2", "fail", "A-3", "pass", "A-4", "fail", "A-5", "fail", "A-6", "fail")}
	r := &Report{Checks: st("A-1", "fail", "A-2", "pass", "A-3", "fail", "A-4", "inconclusive", "A-6", "not-applicable", "A-7", "fail")}
	r.CompareBaseline(base, "old.json")
	b := r.Baseline
	for _, l := range []struct {
		name      string
		got, want []string
	}{
		{"new", b.New, []string{"A-3", "A-7"}},
		{"fixed", b.Fixed, []string{"A-2", "A-6"}},
		{"unchanged", b.Unchanged, []string{"A-1"}},
		{"not rechecked", b.NotRechecked, []string{"A-4", "A-5"}},
	} {
		if !slices.Equal(l.got, l.want) {
			t.Errorf("CompareBaseline: %s = %v; want %v", l.name, l.got, l.want)
		}
	}
	want := map[string]Change{"A-1": ChangeUnchanged, "A-2": ChangeFixed, "A-3": ChangeNew, "A-6": ChangeFixed, "A-7": ChangeNew}
	for _, c := range r.Checks {
		if c.Change != want[c.ID] {
			t.Errorf("CompareBaseline: %s change %q; want %q", c.ID, c.Change, want[c.ID])
		}
	}
	if b.File != "old.json" || b.Target != "svc" {
		t.Errorf("CompareBaseline: file %q target %q", b.File, b.Target)
	}
}

func TestParseFailOn(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Level{"must": LevelMust, "MUST NOT": LevelMust, "Should": LevelShould,
		"recommended": LevelRecommended, "convention": LevelConvention, "any": "", "": ""} {
		got, err := ParseFailOn(in)
		if got != want || (err != nil) != (want == "") {
			t.Errorf("ParseFailOn(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestWaiver_Expired(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		expires string
		now     time.Time
		want    bool
	}{
		{"2026-03-01", time.Date(2026, 3, 1, 23, 59, 0, 0, time.UTC), false},
		{"2026-03-01", time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), true},
		{"2026-03-01", time.Date(2026, 3, 2, 0, 30, 0, 0, time.FixedZone("CET", 3600)), false}, // 23:30 UTC on the 1st
		{"not a date", gateDay, true},
	} {
		if got := (Waiver{Expires: tt.expires}).Expired(tt.now); got != tt.want {
			t.Errorf("Waiver{Expires: %q}.Expired(%s) = %t; want %t", tt.expires, tt.now, got, tt.want)
		}
	}
}
