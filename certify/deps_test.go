package certify

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies keeps the reference stack out of certify: a build of the
// harness that certifies other services must not link SQLite, pgx or the
// reference's packages. The reference reaches certify only as a registered
// target kind (package internal/reference/target, imported by main and by tests).
func TestDependencies(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	forbidden := []string{"github.com/resilcheck/resilcheck/internal/reference", "modernc.org/sqlite", "github.com/jackc/pgx"}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed %d packages: %q", len(deps), out)
	}
	for _, dep := range deps {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				t.Errorf("certify depends on %s", dep)
			}
		}
	}
}
