package builtin

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// contracts are the packages of one contract each; they are written on the
// kit alone.
var contracts = []string{"idempotency", "amplification", "retryafter", "deadlines", "ratelimit"}

// TestContracts_independent: no file of a contract package, its tests
// included, imports another contract package, so each reads alone and a
// helper two contracts need lives once, in the kit.
func TestContracts_independent(t *testing.T) {
	t.Parallel()
	const mod = "github.com/resilcheck/resilcheck/check/"
	for _, c := range contracts {
		files, err := filepath.Glob(filepath.Join("..", c, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("package check/%s: no Go files (%v)", c, err)
		}
		for _, file := range files {
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				other, ok := strings.CutPrefix(path, mod)
				if ok && other != c && other != "checktest" {
					t.Errorf("%s imports %s: a contract package may import only the kit (check, check/checktest)", file, path)
				}
			}
		}
	}
}
