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
// repository's root, relative to the same directory: every file under it
// is read first, and so is each variable of env the module's tests read,
// so that go test caches t's pass only while none of them changed (the
// nested module builds on the main module's code, which the calling
// test's binary does not contain, and go test keys a cached pass on what
// the test itself read).
func Run(t *testing.T, root, dir string, env ...string) {
	t.Helper()
	for _, name := range env {
		_ = os.Getenv(name)
	}
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

// readSources reads every file under root but version control's and
// package managers' directories. Other tests write and remove files in
// the tree meanwhile (binaries a prepare.sh builds, say): one that cannot
// be read is passed over, as what is gone cannot key the cache.
func readSources(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root {
				return err
			}
			return nil
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		_, _ = os.ReadFile(path)
		return nil
	})
}
