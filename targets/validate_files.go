package targets

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// interpreterPattern matches the programs whose first argument is usually
// the script they run.
var interpreterPattern = regexp.MustCompile(`^(sh|bash|dash|zsh|ksh|python[0-9.]*|pypy[0-9.]*|node|nodejs|ruby|perl|php)$`)

// scriptExtensions mark an interpreter's argument as a script file.
var scriptExtensions = []string{".sh", ".bash", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php"}

// checkFiles reports a process command whose program, or the script an
// interpreter is given, does not exist where the launcher would look.
func (v *validator) checkFiles() {
	argv := v.t.Process.Command
	if !v.opts.files || v.kind != KindProcess || len(argv) == 0 {
		return
	}
	dir := besideSpec(v.t.Dir, v.t.Process.Dir) // as Defaults resolves it
	prog := argv[0]
	if strings.Contains(prog, "{{") || strings.TrimSpace(prog) == "" {
		return
	}
	if msg := programProblem(prog, dir); msg != "" {
		v.errf("process.command[0]", "%s", msg)
	}
	if len(argv) > 1 && interpreterPattern.MatchString(filepath.Base(prog)) && looksLikeScript(argv[1]) {
		if msg := fileProblem("the script", argv[1], dir, false); msg != "" {
			v.errf("process.command[1]", "%s", msg)
		}
	}
}

// programProblem says why the launcher could not run prog, or "": a bare
// name is looked up on PATH, a path is taken relative to dir.
func programProblem(prog, dir string) string {
	if !strings.Contains(prog, "/") {
		_, err := exec.LookPath(prog)
		switch {
		case errors.Is(err, exec.ErrNotFound):
			return fmt.Sprintf("the program %s is not on PATH; give its path (relative to process.dir) if it is not installed", prog)
		case err != nil:
			return fmt.Sprintf("the program %s cannot be run: %v", prog, err)
		}
		return ""
	}
	return fileProblem("the program", prog, dir, true)
}

// fileProblem says why path (relative to dir) is not a file to run, or "".
func fileProblem(what, path, dir string, executable bool) string {
	full := besideSpec(dir, path)
	if abs, err := filepath.Abs(full); err == nil {
		full = abs
	}
	where := ""
	if full != path {
		where = " (" + full + ")"
	}
	st, err := os.Stat(full)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("%s %s does not exist%s", what, path, where)
	case err != nil:
		return fmt.Sprintf("%s %s cannot be read: %v", what, path, err)
	case st.IsDir():
		return fmt.Sprintf("%s %s is a directory%s", what, path, where)
	case executable && st.Mode()&0o111 == 0:
		return fmt.Sprintf("%s %s is not executable%s; chmod +x it", what, path, where)
	}
	return ""
}

// looksLikeScript reports whether an interpreter's argument names a file:
// not an option or a template, and with a slash or a script's extension.
func looksLikeScript(arg string) bool {
	if arg == "" || strings.HasPrefix(arg, "-") || strings.Contains(arg, "{{") || strings.Contains(arg, "://") {
		return false
	}
	if strings.Contains(arg, "/") {
		return true
	}
	for _, ext := range scriptExtensions {
		if strings.HasSuffix(arg, ext) && len(arg) > len(ext) {
			return true
		}
	}
	return false
}
