package keepfailed

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/resilcheck/resilcheck/reports"
)

// TestReport: the report lands as valid JSON under the test's name and
// seed when the variable names a directory, and nowhere when it does not.
func TestReport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kept")
	t.Setenv("RESILCHECK_KEEP_FAILED", "")
	Report(t, &reports.Report{Seed: 7})
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("kept with the variable unset: %v", err)
	}
	t.Setenv("RESILCHECK_KEEP_FAILED", dir)
	Report(t, &reports.Report{Seed: 7})
	b, err := os.ReadFile(filepath.Join(dir, "TestReport-seed7.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
}
