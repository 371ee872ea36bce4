package keepfailed

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/resilcheck/resilcheck/faults"
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

// TestHold: a held journal lands as JSON lines until Drop removes it, and
// nothing is held with the variable unset.
func TestHold(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kept")
	j := faults.NewJournal()
	j.Record(faults.Entry{Side: "front", Method: "POST", Path: "/v1/payments", Status: 201})
	t.Setenv("RESILCHECK_KEEP_FAILED", "")
	if h := Hold("TestX/case", 7, j); h != (Journal{}) {
		t.Fatalf("held %+v with the variable unset", h)
	}
	t.Setenv("RESILCHECK_KEEP_FAILED", dir)
	h := Hold("TestX/case", 7, j)
	b, err := os.ReadFile(filepath.Join(dir, "TestX_case-seed7.journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var e map[string]any
	if err := json.Unmarshal(b, &e); err != nil || e["path"] != "/v1/payments" {
		t.Fatalf("journal line %q: %v", b, err)
	}
	h.Keep(t)
	h.Drop()
	if _, err := os.Stat(h.path); !os.IsNotExist(err) {
		t.Fatalf("dropped journal still there: %v", err)
	}
}
