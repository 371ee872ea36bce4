package cli

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// goFieldInText matches a Go struct field as messages must not show it, e.g.
// "Conventions.MaxBudget": users write YAML (conventions.max_budget) or flags.
// A suite's settings have no YAML, only Go, so a message names them as a Go
// user writes them, qualified by the package (amplification.Config.Bucket).
var goFieldInText = regexp.MustCompile(`(?:^|[^.\w])(Conventions|Policy|Harness|Spec|Config|Operation|Tenancy|Effects|Target|Retry|Deadlines|RateLimits)\.[A-Z][A-Za-z]*\b`)

// TestMessages_noGoFields reads every string literal of the packages whose
// words reach users (errors, verdicts, reports) and fails on one that names
// a Go field, or prints a Go type with %T where users read it.
func TestMessages_noGoFields(t *testing.T) {
	t.Parallel()
	// These %T report a Go value no parser produces (a Fault type nobody
	// registered, an item type outside Structured Fields): a programmer's
	// mistake in Go code, where the Go type is the useful name.
	allowedT := map[string]bool{
		filepath.Join("faults", "rule.go"):             true,
		filepath.Join("headers", "ratelimit_parse.go"): true,
		filepath.Join("headers", "sfv_serialize.go"):   true,
	}
	for _, pkg := range []string{"certify", "check", "check/idempotency", "check/amplification", "check/retryafter", "check/deadlines", "check/ratelimit", "check/builtin", "targets", "internal/launch", "load", "faults", "reports", "headers", "cli"} {
		dir := filepath.Join("..", pkg)
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			rel, _ := filepath.Rel(filepath.Join(".."), file)
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					return true
				}
				if m := goFieldInText.FindString(s); m != "" {
					t.Errorf("%s:%d: a message names the Go field %s: %q", rel, fset.Position(lit.Pos()).Line, m, s)
				}
				if strings.Contains(s, "%T") && !allowedT[rel] {
					t.Errorf("%s:%d: a message prints a Go type with %%T: %q", rel, fset.Position(lit.Pos()).Line, s)
				}
				return true
			})
		}
	}
}

// TestProxy_rulesErrorsInYAMLTerms: a rules file with a value of the wrong
// kind is refused in YAML's words, never Go's.
func TestProxy_rulesErrorsInYAMLTerms(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct{ body, want string }{
		{"rules:\n  - name: x\n    match: [1, 2]\n    fault: {type: abort}\n", "want a mapping, got a list"},
		{"rules:\n  - name: x\n    fault: [abort]\n", "want a mapping with a type, got a list"},
		{"rules:\n  - name: x\n    match: {method: [GET]}\n    fault: {type: abort}\n", "want a string, got a list"},
	} {
		file := filepath.Join(dir, "rules.yaml")
		if err := os.WriteFile(file, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errs := runCLI(context.Background(), "proxy", "--listen", "127.0.0.1:0", "--rules", file)
		if code != exitUsage || !strings.Contains(errs, c.want) || strings.Contains(errs, "interface") || strings.Contains(errs, "map[") {
			t.Errorf("proxy --rules with\n%s= %d, stderr %q; want exit 2 saying %q", c.body, code, errs, c.want)
		}
	}
}
