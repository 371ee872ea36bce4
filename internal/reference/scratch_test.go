package reference

import (
	"os"
	"path/filepath"
	"testing"
)

// TestScratchDir: a throwaway store's directory is made under scratchRoot
// when it names one, else under os.TempDir, and can hold a file.
func TestScratchDir(t *testing.T) {
	dir, err := scratchDir()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	want := scratchRoot()
	if want == "" {
		want = os.TempDir()
	}
	if got := filepath.Dir(dir); got != filepath.Clean(want) {
		t.Errorf("made under %s, want %s", got, want)
	}
	if err := os.WriteFile(filepath.Join(dir, "payments.db"), []byte("x"), 0o600); err != nil {
		t.Error(err)
	}
	t.Logf("scratch root %q", scratchRoot())
}
