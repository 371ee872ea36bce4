package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/resilcheck/resilcheck/targets"
)

// The README's shell blocks carry a tag on the line before them, so that a
// new block cannot escape the test unnoticed:
//
//	<!-- readme-test: run -->            run, in order with every other run block
//	<!-- readme-test: skip (why) -->     only its resilcheck commands are parsed
//	<!-- readme-test: output -->         a plain block: "$ COMMAND" then lines of its output
const readmeTag = "<!-- readme-test: "

// readmeBlock is one fenced block of README.md.
type readmeBlock struct {
	line int    // of the opening fence, 1-based
	info string // the fence's info string: "sh", "yaml", ""
	tag  string // "run", "skip", "output" or "" (untagged)
	text string
}

func readREADME(t *testing.T) []readmeBlock {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []readmeBlock
	var cur *readmeBlock
	tag := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur != nil && strings.TrimSpace(line) == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		case strings.HasPrefix(line, "```"):
			cur = &readmeBlock{line: n, info: strings.TrimPrefix(line, "```"), tag: tag}
			tag = ""
		case strings.HasPrefix(line, readmeTag):
			tag, _, _ = strings.Cut(strings.TrimPrefix(line, readmeTag), " ")
		case strings.TrimSpace(line) != "":
			tag = "" // a tag belongs to the block right after it
		}
	}
	return blocks
}

// resilcheckArgs returns the arguments of call when it runs resilcheck
// (go run ./cmd/resilcheck, bin/resilcheck or resilcheck), and how many
// words name the program.
func resilcheckArgs(call *syntax.CallExpr, env expand.Environ) (args []string, prog int, ok bool) {
	words := make([]string, len(call.Args))
	for i, w := range call.Args {
		s, err := expand.Literal(&expand.Config{Env: env}, w)
		if err != nil {
			return nil, 0, false
		}
		words[i] = s
	}
	switch {
	case len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/resilcheck":
		prog = 3
	case len(words) >= 1 && (words[0] == "bin/resilcheck" || words[0] == "resilcheck"):
		prog = 1
	default:
		return nil, 0, false
	}
	return words[prog:], prog, true
}

// dryRun parses args as the CLI would and validates them, without running
// the command: cobra finds the command, parses its flags (a deprecated one
// counts as an error: README must show the current names) and checks the
// arguments and required flags.
func dryRun(args []string) error {
	root := newRootCmd()
	var notices bytes.Buffer
	flagNoticesTo(root, &notices)
	c, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if err := c.ParseFlags(rest); err != nil {
		return err
	}
	if notices.Len() > 0 {
		return errors.New(strings.TrimSpace(notices.String()))
	}
	if err := c.ValidateArgs(c.Flags().Args()); err != nil {
		return err
	}
	if err := c.ValidateRequiredFlags(); err != nil {
		return err
	}
	if !c.Runnable() {
		return fmt.Errorf("%s is not a command that runs", c.CommandPath())
	}
	return c.ValidateFlagGroups()
}

func parseShell(t *testing.T, b readmeBlock) *syntax.File {
	t.Helper()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(b.text), "README.md")
	if err != nil {
		t.Fatalf("README.md:%d: %v", b.line, err)
	}
	return f
}

// TestREADME_commands keeps README's commands true. Every resilcheck command
// in a shell block (and in an output block's "$" line) must parse as the CLI
// parses it; that much runs with -short. Without -short the run blocks are
// run in order by bash, in a directory that holds the repository's files as
// a fresh clone does, with three substitutions that keep the test near a
// minute: "go run ./cmd/resilcheck" and "go build -o bin/resilcheck" use one
// binary built by the test; certify runs one quick check (IK-03, into the
// report directory the full run writes), since a full run takes 35 s and
// TestMatrix certifies the reference in full; and after each command sent
// to the background the script waits for its addresses to listen, as a user
// typing does. Then the output block's command is run and its lines must
// appear in its output, digits and hex masked, "..." skipping lines, and
// every file the commands left behind must be one .gitignore lists.
func TestREADME_commands(t *testing.T) {
	blocks := readREADME(t)
	env := expand.ListEnviron("PWD=/clone", "HOME=/home/user")
	var run []readmeBlock
	var output *readmeBlock
	for _, b := range blocks {
		switch {
		case b.info == "sh" && b.tag == "":
			t.Errorf("README.md:%d: a shell block without a %q tag (run, skip or output)", b.line, readmeTag)
		case b.tag == "output":
			output = &b
			cmd, _, _ := strings.Cut(b.text, "\n")
			args, ok := strings.CutPrefix(cmd, "$ go run ./cmd/resilcheck ")
			if err := dryRun(strings.Fields(args)); !ok || err != nil {
				t.Errorf("README.md:%d: %q: want \"$ go run ./cmd/resilcheck ARGS\" that parse: %v", b.line+1, cmd, err)
			}
		case b.info == "sh":
			if b.tag == "run" {
				run = append(run, b)
			}
			syntax.Walk(parseShell(t, b), func(n syntax.Node) bool {
				call, ok := n.(*syntax.CallExpr)
				if !ok {
					return true
				}
				if args, _, ok := resilcheckArgs(call, env); ok {
					if err := dryRun(args); err != nil {
						t.Errorf("README.md:%d: resilcheck %s: %v", b.line+int(call.Pos().Line()), strings.Join(args, " "), err)
					}
				}
				return true
			})
		}
	}
	if b, err := os.ReadFile(filepath.Join("..", "README.md")); err != nil || !bytes.Contains(b, []byte("go install "+modulePath(t)+"/cmd/resilcheck@latest")) {
		t.Errorf("README.md has no go install line for %s/cmd/resilcheck (%v)", modulePath(t), err)
	}
	checkTourSpec(t)
	if testing.Short() || t.Failed() {
		return
	}
	work := cloneLike(t)
	bin := filepath.Join(t.TempDir(), "resilcheck")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/resilcheck").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	script, ports := readmeScript(t, run)
	for _, p := range ports {
		if l, err := net.Listen("tcp", p); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("README uses %s, which is busy: %v", p, err)
			}
			t.Skipf("README uses %s, which is busy here (something else listens): %v", p, err)
		} else {
			l.Close()
		}
	}
	runScript(t, work, bin, script)
	if output != nil {
		checkExcerpt(t, work, bin, *output)
	}
	checkIgnored(t, work)
}

// readmeScript renders the run blocks as one bash script, with the
// substitutions TestREADME_commands describes; it returns the loopback
// addresses the commands listen on.
func readmeScript(t *testing.T, blocks []readmeBlock) (string, []string) {
	t.Helper()
	env := expand.ListEnviron("PWD=/clone")
	var sb strings.Builder
	sb.WriteString(`set -eu
wait_port() {
  for _ in $(seq 200); do (exec 3<>"/dev/tcp/${1%:*}/${1##*:}") 2>/dev/null && return 0; sleep 0.05; done
  echo "README test: nothing listens on $1" >&2; return 1
}
`)
	var ports []string
	printer := syntax.NewPrinter()
	for _, b := range blocks {
		fmt.Fprintf(&sb, "echo '== README.md:%d' >&2\n", b.line)
		for _, st := range parseShell(t, b).Stmts {
			var waits []string
			if call, ok := st.Cmd.(*syntax.CallExpr); ok {
				waits = rewriteCall(t, b, call, env, st.Background)
				ports = append(ports, waits...)
			}
			if err := printer.Print(&sb, st); err != nil {
				t.Fatal(err)
			}
			sb.WriteString("\n")
			for _, addr := range waits {
				fmt.Fprintf(&sb, "wait_port %s\n", addr)
			}
		}
	}
	slices.Sort(ports)
	return sb.String(), slices.Compact(ports)
}

// rewriteCall applies the substitutions to one command, in place, and
// returns the addresses to wait for when it runs in the background.
func rewriteCall(t *testing.T, b readmeBlock, call *syntax.CallExpr, env expand.Environ, background bool) []string {
	t.Helper()
	words := func(s string) []*syntax.Word {
		f, err := syntax.NewParser().Parse(strings.NewReader("x "+s), "")
		if err != nil {
			t.Fatal(err)
		}
		return f.Stmts[0].Cmd.(*syntax.CallExpr).Args[1:]
	}
	lit := func(w *syntax.Word) string { return w.Lit() }
	if len(call.Args) == 5 && lit(call.Args[0]) == "go" && lit(call.Args[1]) == "build" && lit(call.Args[3]) == "bin/resilcheck" {
		call.Args = words(`-D "$RESILCHECK_README_BIN" bin/resilcheck`)
		call.Args = append(words("install"), call.Args...)
		return nil
	}
	args, prog, ok := resilcheckArgs(call, env)
	if !ok {
		return nil
	}
	if prog == 3 { // go run ./cmd/resilcheck
		call.Args = append(words(`"$RESILCHECK_README_BIN"`), call.Args[3:]...)
	}
	if len(args) > 0 && args[0] == "certify" {
		call.Args = append(call.Args, words("--check IK-03 --report-dir "+reportDirOf(args))...)
	}
	if !background {
		return nil
	}
	var addrs []string
	for i, a := range args[:len(args)-1] {
		if a == "--addr" || a == "--listen" || a == "--admin" {
			addrs = append(addrs, args[i+1])
		}
	}
	if len(addrs) == 0 {
		t.Errorf("README.md:%d: resilcheck %s runs in the background without --addr, --listen or --admin: name its address", b.line+int(call.Pos().Line()), strings.Join(args, " "))
	}
	return addrs
}

// reportDirOf is where certify args write the report when they run in full.
func reportDirOf(args []string) string {
	for i, a := range args[:len(args)-1] {
		if a == "--"+reportDirFlag || a == "--out" || a == "-o" {
			return args[i+1]
		}
	}
	return defaultReportDir
}

// runScript runs script with bash in dir, in a process group of its own
// that is killed when it ends, so nothing it started outlives the test.
func runScript(t *testing.T, dir, bin, script string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "RESILCHECK_README_BIN="+bin, "PWD="+dir, "NO_COLOR=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// Once bash has exited, a background job it left running still holds
	// the output pipe, and Cancel no longer fires: without a WaitDelay, Run
	// waits for that job for ever (a fresh-clone run hung 10 minutes).
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	t.Logf("README's commands took %s", time.Since(start).Round(time.Millisecond))
	if testing.Verbose() {
		t.Logf("their output:\n%s", out.String())
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		t.Fatalf("README's commands left a process running after the script ended (killed now); a block's kill/wait missed it\noutput (the last == line names the block):\n%s", out.String())
	}
	if err != nil {
		t.Fatalf("README's commands failed: %v\nscript:\n%s\noutput (the last == line names the block):\n%s", err, script, out.String())
	}
}

// maskVarying masks what differs between runs: hex strings, and numbers
// with their unit when they are durations (1.4s and 838.4ms alike).
var maskVarying = regexp.MustCompile(`[0-9a-f]{8,}|[0-9]+(\.[0-9]+)?(ns|µs|ms|s|m)?`)

// checkExcerpt runs the output block's command and checks that its lines
// appear in the output, in order, consecutively between "..." lines.
func checkExcerpt(t *testing.T, dir, bin string, b readmeBlock) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(b.text, "\n"), "\n")
	args := strings.Fields(strings.TrimPrefix(lines[0], "$ go run ./cmd/resilcheck "))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	cmd.WaitDelay = 5 * time.Second // a child left running must not hold Run after the deadline
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	_ = cmd.Run() // the excerpt shows a failing run: its exit code is the prose's business
	got := strings.Split(maskVarying.ReplaceAllString(stdout.String(), "#"), "\n")
	i := 0
	gap := true // the excerpt may start anywhere
	for n, want := range lines[1:] {
		if strings.TrimSpace(want) == "..." {
			gap = true
			continue
		}
		w := strings.TrimRight(maskVarying.ReplaceAllString(want, "#"), " ")
		for gap && i < len(got) && strings.TrimRight(got[i], " ") != w {
			i++
		}
		if i >= len(got) || strings.TrimRight(got[i], " ") != w {
			t.Errorf("README.md:%d: the excerpt's line %q is not in the output of %q here:\n%s", b.line+2+n, want, lines[0], stdout.String())
			return
		}
		i++
		gap = false
	}
}

// cloneLike returns a directory that holds the repository's files as a
// fresh clone does: a symbolic link to each top-level entry, except those
// .gitignore lists (a developer's bin/ or report directory).
func cloneLike(t *testing.T) string {
	t.Helper()
	repo, err := filepath.Abs(filepath.Join(".."))
	if err != nil {
		t.Fatal(err)
	}
	ignored := gitignored(t)
	dir := t.TempDir()
	ents, err := os.ReadDir(repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() == ".git" || ignored(e.Name(), e.IsDir()) {
			continue
		}
		if err := os.Symlink(filepath.Join(repo, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// checkIgnored fails for every entry the README's commands created in dir
// that .gitignore does not list: a user's clone would show it as new.
func checkIgnored(t *testing.T, dir string) {
	t.Helper()
	ignored := gitignored(t)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Type()&os.ModeSymlink == 0 && !ignored(e.Name(), e.IsDir()) {
			t.Errorf("the README's commands leave %s in a clone, and .gitignore does not list it", e.Name())
		}
	}
}

// gitignored reads the repository's .gitignore and reports whether it
// ignores a top-level entry: patterns without a slash inside match any
// name, "/NAME" and "NAME/" forms as git reads them.
func gitignored(t *testing.T) func(name string, dir bool) bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			patterns = append(patterns, line)
		}
	}
	return func(name string, dir bool) bool {
		for _, p := range patterns {
			dirOnly := strings.HasSuffix(p, "/")
			p = strings.TrimSuffix(strings.TrimPrefix(p, "/"), "/")
			if strings.Contains(p, "/") || dirOnly && !dir {
				continue
			}
			if ok, _ := path.Match(p, name); ok {
				return true
			}
		}
		return false
	}
}

// tourNote is examples/tour/target.yaml's second line, the one line it adds
// to the template.
const tourNote = "# examples/tour: target init's template with the processor's upstream set, for README's tour.\n"

// checkTourSpec keeps examples/tour/target.yaml what README says it is:
// target init's template with the processor's upstream uncommented.
func checkTourSpec(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "examples", "tour", "target.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	first, rest, _ := strings.Cut(string(targets.InitTemplate), "\n")
	want := first + "\n" + tourNote + strings.Replace(rest, "    # upstream: http://127.0.0.1:9090", "    upstream: http://127.0.0.1:9090", 1)
	if string(b) != want {
		t.Errorf("examples/tour/target.yaml is not target init's template with the processor's upstream uncommented; write it again from targets/init.yaml")
	}
}

// modulePath is the module line of the repository's go.mod.
func modulePath(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if m, ok := strings.CutPrefix(line, "module "); ok {
			return strings.TrimSpace(m)
		}
	}
	t.Fatal("go.mod has no module line")
	return ""
}
