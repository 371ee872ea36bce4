package targets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTarget_Validate_files: with WithFileChecks, a process command whose
// program or interpreter's script does not exist where the launcher would
// look is a problem naming the path, at its line and column; commands the
// launcher runs fine (PATH programs, scripts that exist, options, templates)
// are not.
func TestTarget_Validate_files(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, mode := range map[string]os.FileMode{"run.sh": 0o755, "plain": 0o644, "bin/svc": 0o755} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name, command, pdir string
		want                string // "" = valid; else a problem line's end
	}{
		{name: "script beside the spec", command: `"./run.sh", "{{.Port}}"`},
		{name: "program in a subdirectory", command: `./bin/svc`},
		{name: "relative to process.dir", command: `./svc`, pdir: "bin"},
		{name: "absolute", command: `"` + filepath.Join(dir, "run.sh") + `"`},
		{name: "on PATH", command: `sh, -c, "exec sleep 1"`},
		{name: "interpreter and its script", command: `sh, run.sh, --port, "{{.Port}}"`},
		{name: "interpreter with an option first", command: `sh, -e, no-such.sh`},
		{name: "interpreter with a templated script", command: `sh, "{{.TempDir}}/start.sh"`},
		{name: "interpreter with a word", command: `sh, start`},
		{name: "templated program", command: `"{{.TempDir}}/svc"`},
		{name: "missing program", command: `./bin/payments`,
			want: "3:13: process.command[0]: the program ./bin/payments does not exist (" + filepath.Join(dir, "bin/payments") + ")"},
		{name: "missing relative to process.dir", command: `./run.sh`, pdir: "bin",
			want: "process.command[0]: the program ./run.sh does not exist (" + filepath.Join(dir, "bin/run.sh") + ")"},
		{name: "not on PATH", command: `resilcheck-no-such-program, serve`,
			want: "3:13: process.command[0]: the program resilcheck-no-such-program is not on PATH; give its path (relative to process.dir) if it is not installed"},
		{name: "missing script", command: `sh, server.sh`,
			want: "3:17: process.command[1]: the script server.sh does not exist (" + filepath.Join(dir, "server.sh") + ")"},
		{name: "missing script with a path", command: `/bin/sh, scripts/start`,
			want: "process.command[1]: the script scripts/start does not exist (" + filepath.Join(dir, "scripts/start") + ")"},
		{name: "not executable", command: `./plain`,
			want: "process.command[0]: the program ./plain is not executable (" + filepath.Join(dir, "plain") + "); chmod +x it"},
		{name: "a directory", command: `./bin`,
			want: "process.command[0]: the program ./bin is a directory (" + filepath.Join(dir, "bin") + ")"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			spec := "kind: process\nprocess:\n  command: [" + c.command + "]\n"
			if c.pdir != "" {
				spec += "  dir: " + c.pdir + "\n"
			}
			spec += "operations: [{name: pay, path: /v1/payments}]\ndependencies: [{name: p}]\neffects: {ledger: {dependency: p}}\n"
			name := filepath.Join(dir, "target.yaml")
			if _, err := Parse(name, []byte(spec)); err != nil {
				t.Fatalf("without WithFileChecks: %v; want a valid spec", err)
			}
			_, err := Parse(name, []byte(spec), WithFileChecks())
			var se *SpecError
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("Parse: %v; want a valid spec", err)
			case c.want == "":
			case !errors.As(err, &se):
				t.Fatalf("Parse: %v; want a *SpecError ending %q", err, c.want)
			case len(se.Lines()) != 1 || !strings.HasSuffix(se.Lines()[0], c.want):
				t.Errorf("problems:\n%s\nwant one ending %q", strings.Join(se.Lines(), "\n"), c.want)
			}
		})
	}
}
