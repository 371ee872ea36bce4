package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/resilcheck/resilcheck/internal/reference"
)

// exampleCommands returns the resilcheck command lines of a command's
// Example, continuation lines joined.
func exampleCommands(t *testing.T, example string) [][]string {
	t.Helper()
	f, err := syntax.NewParser().Parse(strings.NewReader(example), "Example")
	if err != nil {
		t.Fatalf("Example does not parse as shell: %v\n%s", err, example)
	}
	var out [][]string
	env := expand.ListEnviron("GITHUB_STEP_SUMMARY=/tmp/summary.md")
	syntax.Walk(f, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok {
			if args, _, ok := resilcheckArgs(call, env); ok {
				out = append(out, args)
			}
		}
		return true
	})
	return out
}

// TestHelp_examplesParse: every command line of every command's --help
// example parses as the CLI parses it, current flag names only.
func TestHelp_examplesParse(t *testing.T) {
	t.Parallel()
	n := 0
	for _, c := range allCommands(newRootCmd()) {
		for _, args := range exampleCommands(t, c.Example) {
			n++
			if err := dryRun(args); err != nil {
				t.Errorf("%s --help example: resilcheck %s: %v", c.CommandPath(), strings.Join(args, " "), err)
			}
		}
	}
	if n < 10 {
		t.Errorf("found %d example command lines; want the examples of every command", n)
	}
}

// TestLoad_helpExampleAgainstReference runs load's first --help example
// against the reference stack, as its comment says it works: for 1 s instead
// of 10, on the stack's own port, its results in a temporary directory.
func TestLoad_helpExampleAgainstReference(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := reference.Start(ctx, reference.WithGatewayAddr("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(context.Background())
	cmd, _, _ := newRootCmd().Find([]string{"load"})
	args := exampleCommands(t, cmd.Example)[0]
	out := filepath.Join(t.TempDir(), "node-1.gob")
	for i, a := range args {
		switch {
		case strings.HasPrefix(a, "http://127.0.0.1:8080"):
			args[i] = st.GatewayURL + strings.TrimPrefix(a, "http://127.0.0.1:8080")
		case a == "10s":
			args[i] = "1s"
		case a == "node-1.gob":
			args[i] = out
		}
	}
	code, stdout, stderr := runCLI(ctx, args...)
	if code != exitPass || !strings.Contains(stdout, "201:") {
		t.Fatalf("resilcheck %s = %d\nstdout %s\nstderr %s", strings.Join(args, " "), code, stdout, stderr)
	}
	if st, err := os.Stat(out); err != nil || st.Size() == 0 {
		t.Errorf("results file: %v", err)
	}
}
