package faults

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseRules: a rules file either parses or fails with a
// *RulesFileError naming the file, never a panic or a bare error.
func FuzzParseRules(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{
		"", "rules: []", "rules: {}", "rules:\n  - {}", "default: 3", "[1, 2]", "rules:\n  - match: {first: -1}\n",
		"rules:\n  - fault: {type: abort, status: 99999}\n", "rules:\n  - fault: {type: delay, delay: 1e400s}\n", "a: &a [*a]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := ParseRules("fuzz.yaml", data)
		var re *RulesFileError
		if err != nil && (!errors.As(err, &re) || re.File != "fuzz.yaml") {
			t.Fatalf("ParseRules error %v (%T) is not a *RulesFileError for fuzz.yaml", err, err)
		}
	})
}
