package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/check/builtin"
)

func TestRun_Checks(t *testing.T) {
	t.Parallel()
	ids := func() []string {
		var out []string
		for _, e := range check.Catalogue(builtin.Catalogued()) {
			out = append(out, e.ID)
		}
		return out
	}()
	t.Run("text lists every check", func(t *testing.T) {
		t.Parallel()
		var out, errOut bytes.Buffer
		if code := run(t.Context(), []string{"checks"}, &out, &errOut); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		for _, id := range ids {
			if !strings.Contains(out.String(), " "+id+" ") {
				t.Errorf("text output lacks %s", id)
			}
		}
	})
	t.Run("json decodes to the catalogue", func(t *testing.T) {
		t.Parallel()
		var out, errOut bytes.Buffer
		if code := run(t.Context(), []string{"checks", "--format", "json"}, &out, &errOut); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		var got struct{ Checks []check.Entry }
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Checks) != len(ids) || got.Checks[0].ID != ids[0] || got.Checks[0].Level == "" || got.Checks[0].Source == "" {
			t.Errorf("json has %d checks, first %+v; want %d, first %s with level and source", len(got.Checks), got.Checks[0], len(ids), ids[0])
		}
	})
	t.Run("md is docs/checks.md", func(t *testing.T) {
		t.Parallel()
		var out, errOut bytes.Buffer
		if code := run(t.Context(), []string{"checks", "--format", "md"}, &out, &errOut); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		want, err := os.ReadFile("../docs/checks.md")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Error("checks --format md differs from docs/checks.md; regenerate it: go run ./cmd/resilcheck checks --format md > docs/checks.md")
		}
	})
	t.Run("unknown format is a usage error", func(t *testing.T) {
		t.Parallel()
		var out, errOut bytes.Buffer
		if code := run(t.Context(), []string{"checks", "--format", "yaml"}, &out, &errOut); code != exitUsage {
			t.Fatalf("exit %d, want %d: %s", code, exitUsage, errOut.String())
		}
	})
}
