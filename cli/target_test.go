package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/targets"
)

const badSpec = `version: 1
service:
  url: http://127.0.0.1:8080
  helth: /healthz
`

func writeSpec(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTargetCmd_ExitCodes(t *testing.T) {
	t.Parallel()
	good := writeSpec(t, "good.yaml", string(targets.InitTemplate))
	bad := writeSpec(t, "bad.yaml", badSpec)
	waived := writeSpec(t, "waived.yaml", string(targets.InitTemplate)+"gate: {waivers: [{check: XX-99, reason: r, expires: 2099-01-01}]}\n")
	existing := writeSpec(t, "existing.yaml", "keep me")
	noProgram := writeSpec(t, "no-program.yaml", "kind: process\nprocess: {command: [./bin/payments, --port, '{{.Port}}']}\n"+
		"operations: [{name: pay, path: /v1/payments}]\ndependencies: [{name: p}]\neffects: {ledger: {dependency: p}}\n")
	noScript := writeSpec(t, "no-script.yaml", "kind: process\nprocess: {command: [sh, ./start.sh]}\n"+
		"operations: [{name: pay, path: /v1/payments}]\ndependencies: [{name: p}]\neffects: {ledger: {dependency: p}}\n")
	fresh := filepath.Join(t.TempDir(), "new.yaml")
	cases := []struct {
		name    string
		args    []string
		code    int
		stdout  string // substring
		stderrs string // substring
	}{
		{"validate ok", []string{"target", "validate", good}, exitPass, good + ": ok (kind running)\n", ""},
		{"validate bad", []string{"target", "validate", bad}, exitUsage,
			bad + `:4:3: service: unknown field "helth" (did you mean "health"?)`, "invalid: 1 of 1 spec"},
		{"validate mixed", []string{"target", "validate", good, bad}, exitUsage, good + ": ok (kind running)\n" + bad + ":4:3:", "invalid: 1 of 2 specs"},
		{"validate missing file", []string{"target", "validate", "/nonexistent/t.yaml"}, exitUsage,
			"/nonexistent/t.yaml: cannot read: no such file or directory", ""},
		{"validate judges waivers against the checks", []string{"target", "validate", waived}, exitUsage,
			`gate.waivers[0].check: unknown check "XX-99"`, "invalid: 1 of 1 spec"},
		{"validate no file", []string{"target", "validate"}, exitUsage, "", "requires at least 1 arg"},
		{"validate a missing program", []string{"target", "validate", noProgram}, exitUsage,
			noProgram + ":2:21: process.command[0]: the program ./bin/payments does not exist (" + filepath.Join(filepath.Dir(noProgram), "bin/payments") + ")\n",
			"invalid: 1 of 1 spec"},
		{"validate a missing script", []string{"target", "validate", noScript}, exitUsage,
			noScript + ":2:25: process.command[1]: the script ./start.sh does not exist (" + filepath.Join(filepath.Dir(noScript), "start.sh") + ")\n",
			"invalid: 1 of 1 spec"},
		{"init stdout", []string{"target", "init"}, exitPass, "kind: running", ""},
		{"init refuses existing", []string{"target", "init", existing}, exitUsage, "", "already exists; use --force"},
		{"init two files", []string{"target", "init", "a", "b"}, exitUsage, "", "accepts at most 1 arg"},
		{"init new file", []string{"target", "init", fresh}, exitPass, "", "wrote " + fresh},
		{"schema", []string{"target", "schema"}, exitPass, `"$schema"`, ""},
		{"unknown subcommand", []string{"target", "bogus"}, exitUsage, "", "unknown command"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			code := run(context.Background(), c.args, &out, &errb)
			if code != c.code || !strings.Contains(out.String(), c.stdout) || !strings.Contains(errb.String(), c.stderrs) {
				t.Errorf("run(%q) = %d\nstdout %q\nstderr %q\nwant %d, stdout containing %q, stderr containing %q",
					c.args, code, out.String(), errb.String(), c.code, c.stdout, c.stderrs)
			}
		})
	}
}

func TestTargetInit_thenValidate(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "target.yaml")
	var out, errb bytes.Buffer
	for _, args := range [][]string{
		{"target", "init", path},
		{"target", "init", "--force", path},
		{"target", "validate", path},
	} {
		if code := run(context.Background(), args, &out, &errb); code != exitPass {
			t.Fatalf("run(%q) = %d; stderr %q", args, code, errb.String())
		}
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, targets.InitTemplate) {
		t.Error("target init did not write the template")
	}
	if !strings.Contains(out.String(), path+": ok") {
		t.Errorf("validate output %q; want %q", out.String(), path+": ok")
	}
}

func TestTargetSchema_isJSON(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if code := run(context.Background(), []string{"target", "schema"}, &out, &out); code != exitPass || !json.Valid(out.Bytes()) {
		t.Errorf("target schema = %d, valid JSON %t", code, json.Valid(out.Bytes()))
	}
}

func TestTargetExitCode(t *testing.T) {
	t.Parallel()
	cases := []struct {
		err  error
		want int
	}{
		{fmt.Errorf("certify: %w", &targets.SpecError{File: "t.yaml", Problems: []targets.Problem{{Msg: "x"}}}), exitUsage},
		{fmt.Errorf("certify: %w", &launch.UnhealthyError{URL: "http://127.0.0.1:1/healthz", Attempts: 3}), exitInconclusive},
		{&launch.ExitedError{Command: []string{"x"}, Err: errors.New("exit status 1")}, exitInconclusive},
	}
	for _, c := range cases {
		if got := exitCode(c.err); got != c.want {
			t.Errorf("exitCode(%v) = %d; want %d", c.err, got, c.want)
		}
	}
}

// TestTargetValidate_shippedSpecs: every target spec shipped in examples/
// validates as certify reads it, file checks included. A spec whose program
// is not installed here (node, python3) is skipped, saying so.
func TestTargetValidate_shippedSpecs(t *testing.T) {
	t.Parallel()
	var specs []string
	for _, pattern := range []string{"../examples/*/target.yaml", "../examples/*/*/target.yaml"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, m...)
	}
	if len(specs) < 10 {
		t.Fatalf("found %d specs under examples/; want every shipped one", len(specs))
	}
	for _, spec := range specs {
		t.Run(spec, func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			code := run(context.Background(), []string{"target", "validate", spec}, &out, &errb)
			switch {
			case code == exitPass:
			case strings.Contains(out.String(), "is not on PATH") && strings.Count(strings.TrimSpace(out.String()), "\n") == 0:
				t.Skipf("a program it runs is not installed here: %s", strings.TrimSpace(out.String()))
			default:
				t.Errorf("target validate %s = %d\n%s%s", spec, code, out.String(), errb.String())
			}
		})
	}
}
