package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/resilcheck/resilcheck/internal/matrix"
	"github.com/resilcheck/resilcheck/reports"
)

// TestMatrix_curl certifies two targets through `resilcheck matrix`: curl
// as examples/clients has it, and a copy whose expectations wrongly say
// curl jitters its retries (CL-13 passes). The matrix must hold the copy's
// CL-13 as its one disagreement, exit 1, and write valid pages.
func TestMatrix_curl(t *testing.T) {
	if testing.Short() {
		t.Skip("certifies curl twice, about 10 s")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	// The command offers itself to its targets through these.
	t.Setenv("PATH", os.Getenv("PATH"))
	t.Setenv(selfVariable, "")
	root := t.TempDir()
	copyDir(t, filepath.Join("..", "examples", "clients", "curl"), filepath.Join(root, "curl"))
	copyDir(t, filepath.Join("..", "examples", "clients", "curl"), filepath.Join(root, "curl-believed"))
	rewrite(t, filepath.Join(root, "curl-believed", "target.yaml"), "name: curl\n", "name: curl-believed\n")
	rewrite(t, filepath.Join(root, "curl-believed", "expectations.yaml"), "target: curl\n", "target: curl-believed\n")
	rewrite(t, filepath.Join(root, "curl-believed", "expectations.yaml"), "      CL-13:", "      # CL-13:")
	out := filepath.Join(t.TempDir(), "m")
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"matrix", "-q", "--seed", "5", "-o", out, root}, &stdout, &stderr)
	if code != exitFail {
		t.Fatalf("exit %d, want %d (a disagreement)\n%s%s", code, exitFail, stdout.String(), stderr.String())
	}
	raw, err := os.ReadFile(filepath.Join(out, matrix.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var m matrix.Matrix
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Rows) != 2 || m.Seed != 5 {
		t.Fatalf("%d rows, seed %d", len(m.Rows), m.Seed)
	}
	for _, r := range m.Rows {
		if r.Error != "" {
			t.Fatalf("%s not certified: %s", r.Name, r.Error)
		}
		for id, c := range r.Cells {
			off := r.Name == "curl-believed" && id == "CL-13"
			if c.Agrees == off {
				t.Errorf("%s %s: %s, agrees %v (expected %v: %s; observed %s)", r.Name, id, c.Status, c.Agrees, c.Expected, c.Why, c.Observed)
			}
			if off && c.Status != reports.StatusFail {
				t.Errorf("curl-believed CL-13: %s, want fail (curl waits 1 s doubling, no jitter)", c.Status)
			}
		}
		if _, err := os.Stat(filepath.Join(out, r.Reports[0], "report.html")); err != nil {
			t.Errorf("%s: its report: %v", r.Name, err)
		}
	}
	page, err := os.ReadFile(filepath.Join(out, matrix.HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := html.Parse(bytes.NewReader(page)); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, matrix.MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "## Disagreements\n\n- **curl-believed** [CL-13: fail") {
		t.Errorf("matrix.md does not list the disagreement:\n%s", md)
	}
}

// TestMatrix_usage holds bad input to exit 2.
func TestMatrix_usage(t *testing.T) {
	t.Setenv("PATH", os.Getenv("PATH"))
	t.Setenv(selfVariable, "")
	empty := t.TempDir()
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "target.yaml"), []byte("version: 1\nkind: nonsense\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "expectations.yaml"), []byte("target: x\nvariants:\n  - name: p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"no targets":      {"matrix", empty},
		"not a directory": {"matrix", filepath.Join(empty, "missing")},
		"a bad spec":      {"matrix", bad},
		"runs 0":          {"matrix", "--runs", "0", empty},
		"no -o":           {"matrix", "-o", "", bad},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if !slices.Contains(args, "-o") {
				args = append(args, "-o", t.TempDir())
			}
			if code := run(t.Context(), args, &stdout, &stderr); code != exitUsage {
				t.Errorf("exit %d, want %d: %s", code, exitUsage, stderr.String())
			}
		})
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
}

func rewrite(t *testing.T, path, old, new string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), old) {
		t.Fatalf("%s holds no %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(raw), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}
