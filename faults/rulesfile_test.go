package faults

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadRules_Examples(t *testing.T) {
	t.Parallel()
	f, err := LoadRules(filepath.Join("testdata", "issue.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Rules) != 2 || f.Rules[0].Match.First != 2 || TypeOf(f.Rules[1].Fault) != "drop-response" || f.Rules[1].Match.Probability != 0.5 {
		t.Fatalf("parsed %+v", f.Rules)
	}
	if a := f.Rules[0].Fault.(*Abort); a.Headers["Retry-After"] != "1" || a.Status != 429 {
		t.Fatalf("abort %+v", a)
	}
	s, err := LoadRules(filepath.Join("testdata", "standin.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if s.StandIn == nil || s.StandIn.Status != 200 || len(s.Rules) != 2 {
		t.Fatalf("parsed %+v", s)
	}
}

func TestParseRules_Errors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		line      int
		want      string
	}{
		{"unknown attribute", "", 10, "fault.jiter: unknown attribute"},
		{"unknown top key", "rulez: []\n", 1, `unknown key "rulez"`},
		{"not a list", "rules: {a: 1}\n", 1, "want a list"},
		{"bad yaml", "rules:\n  - name: [unclosed\n", 0, "line"},
		{"unknown type", "rules:\n  - name: x\n    fault:\n      type: explode\n", 4, "unknown fault type"},
		{"missing name", "rules:\n  - fault: {type: reset}\n", 2, "needs a name"},
		{"duplicate", "rules:\n  - name: x\n    fault: {type: reset}\n  - name: x\n    fault: {type: reset}\n", 4, "duplicate rule name"},
		{"bad match", "rules:\n  - name: x\n    match:\n      first: -1\n    fault: {type: reset}\n", 3, "must not be negative"},
		{"bad probability", "rules:\n  - name: x\n    match: {probability: 0}\n    fault: {type: reset}\n", 3, "probability"},
		{"bad default", "default:\n  status: 200\n  stauts: 1\n", 3, "default.stauts"},
		{"bad header value", "rules:\n  - name: x\n    fault:\n      type: abort\n      status: 503\n      headers:\n        Retry-After: [1]\n", 7, "headers.Retry-After"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.src == "" {
				_, err = LoadRules(filepath.Join("testdata", "bad_attr.yaml"))
			} else {
				_, err = ParseRules("r.yaml", []byte(tt.src))
			}
			var fe *RulesFileError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.want) || (tt.line > 0 && fe.Line != tt.line) {
				t.Fatalf("error %v (line %d); want line %d and %q", err, lineOfErr(fe), tt.line, tt.want)
			}
		})
	}
}

func lineOfErr(fe *RulesFileError) int {
	if fe == nil {
		return -1
	}
	return fe.Line
}
