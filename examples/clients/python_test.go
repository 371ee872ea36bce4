package clients_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resilcheck/resilcheck/expect"
)

// TestTenacity certifies urllib.request retried by tenacity's @retry
// through tenacity/target.yaml (Debian 12's python3-tenacity).
func TestTenacity(t *testing.T) {
	t.Parallel()
	c, p := fromSpec(t, "tenacity")
	debianPython(t, "tenacity", c.Argv[0], "tenacity")
	certifyAgainst(t, "tenacity", c, p)
}

// TestHTTPX certifies httpx with HTTPTransport(retries=3) through
// httpx/target.yaml (Debian 12's python3-httpx and python3-httpcore).
func TestHTTPX(t *testing.T) {
	t.Parallel()
	c, p := fromSpec(t, "httpx")
	debianPython(t, "httpx", c.Argv[0], "httpx", "httpcore")
	certifyAgainst(t, "httpx", c, p)
}

// versionsProbe imports each module named in argv and prints "name
// version file" for the interpreter and each of them.
const versionsProbe = `import importlib, importlib.metadata, platform, sys
print("python3", platform.python_version(), sys.executable)
for n in sys.argv[1:]:
    m = importlib.import_module(n)
    print(n, importlib.metadata.version(n), m.__file__)
`

// debianPython checks that python, the interpreter dir's target.yaml
// names, imports each module at the version dir's expectations were read
// from (their versions: field), and logs where each comes from. A missing
// interpreter or module skips the test, or fails it where
// RESILCHECK_REQUIRE_ZOO=1 (.ci/run installs them); so does another
// version, which the expectations do not describe.
func debianPython(t *testing.T, dir, python string, modules ...string) {
	t.Helper()
	if _, err := exec.LookPath(python); err != nil {
		zooSkip(t, "%s is not installed", python)
	}
	f, err := expect.Load(filepath.Join(dir, expect.FileName), clientIDs())
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(python, append([]string{"-c", versionsProbe}, modules...)...).CombinedOutput()
	if err != nil {
		zooSkip(t, "%s cannot import %s (apt-get install python3-%s): %s", python, strings.Join(modules, ", "),
			strings.Join(modules, " python3-"), lastLine(out))
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, rest, _ := strings.Cut(line, " ")
		version, file, _ := strings.Cut(rest, " ")
		want, ok := f.Versions[name]
		if !ok {
			t.Fatalf("%s: versions names no %s", f.Path, name)
		}
		if version != want {
			zooSkip(t, "%s's expectations were read from %s %s; %s has %s (%s)", dir, name, want, python, version, file)
		}
		t.Logf("%s %s (%s)", name, version, file)
	}
}

// zooSkip skips t, or fails it where RESILCHECK_REQUIRE_ZOO=1 (as .ci/run
// sets, having installed the zoo's packages), so a client missing in CI is
// a failure, not a silent pass.
func zooSkip(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("RESILCHECK_REQUIRE_ZOO") == "1" {
		t.Fatalf(format+" (RESILCHECK_REQUIRE_ZOO=1)", args...)
	}
	t.Skipf(format, args...)
}

// lastLine is the last non-empty line of a command's output.
func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}
