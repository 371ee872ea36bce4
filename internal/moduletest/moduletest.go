// Package moduletest runs the tests of the repository's other Go modules
// from the main module's own tests, so one `go test ./...` at the root
// covers them and schedules each beside the other packages (-p) instead of
// after them.
package moduletest

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Run runs `go test ./...` in the module at dir, relative to the calling
// test's package directory, with the calling run's -short and -v, and
// fails t with the module's output when its tests fail. root is the
// repository's root, relative to the same directory: every source file
// under it is read first, so that go test caches t's pass only while none
// of them changed (the nested module builds on the main module's code,
// which the calling test's binary does not contain).
func Run(t *testing.T, root, dir string) {
	t.Helper()
	if err := readSources(root); err != nil {
		t.Fatalf("reading the sources under %s: %v", root, err)
	}
	args := []string{"test", "-timeout", "15m"}
	if testing.Short() {
		args = append(args, "-short")
	}
	if testing.Verbose() {
		args = append(args, "-v")
	}
	cmd := exec.Command("go", append(args, "./...")...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	t.Logf("go %s in %s:\n%s", strings.Join(args, " "), dir, out)
}

// sourceExt are the files a module's build and tests read from the tree.
var sourceExt = map[string]bool{".go": true, ".mod": true, ".sum": true, ".yaml": true, ".yml": true, ".proto": true}

// readSources reads every source file under root, skipping VCS and
// package-manager directories.
func readSources(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !sourceExt[filepath.Ext(path)] && d.Name() != "Dockerfile" {
			return nil
		}
		_, err = os.ReadFile(path)
		return err
	})
}
