package clients_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resilcheck/resilcheck/clients"
	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/targets"
)

// fromSpec loads dir/target.yaml, a kind-client spec, as certify does.
func fromSpec(t *testing.T, dir string) (clients.Command, clients.Policy) {
	t.Helper()
	spec, err := targets.Load(filepath.Join(dir, "target.yaml"), targets.WithKinds(launch.Kinds{targets.KindClient: clients.Kind()}.Specs()))
	if err != nil {
		t.Fatal(err)
	}
	c, p, _, err := clients.FromSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	return c.(clients.Command), p
}

// needs skips the test when a program is not installed.
func needs(t *testing.T, prog string) {
	t.Helper()
	if _, err := exec.LookPath(prog); err != nil {
		t.Skipf("%s is not installed", prog)
	}
}

// TestCurl certifies curl --retry (7.88.1, Debian 12) through curl/target.yaml.
func TestCurl(t *testing.T) {
	t.Parallel()
	needs(t, "curl")
	c, p := fromSpec(t, "curl")
	certifyAgainst(t, "curl", c, p)
}

// TestWget certifies GNU Wget 1.21.3's retries through wget/target.yaml.
func TestWget(t *testing.T) {
	t.Parallel()
	needs(t, "wget")
	c, p := fromSpec(t, "wget")
	certifyAgainst(t, "wget", c, p)
}

// TestURLLib3 certifies Python urllib3's Retry through urllib3/target.yaml.
func TestURLLib3(t *testing.T) {
	t.Parallel()
	needs(t, "python3")
	// The interpreter itself, not a version manager's shim: a dozen
	// concurrent pyenv shims take seconds each to start.
	python, err := exec.Command("python3", "-c", "import sys, urllib3; print(sys.executable)").Output()
	if err != nil {
		t.Skip("python3 has no urllib3")
	}
	c, p := fromSpec(t, "urllib3")
	c.Argv[0] = strings.TrimSpace(string(python))
	certifyAgainst(t, "urllib3", c, p)
}

// TestSpecs_valid holds every client's target.yaml to the schema and the
// client kind's validation.
func TestSpecs_valid(t *testing.T) {
	paths, _ := filepath.Glob("*/target.yaml")
	if len(paths) < 3 {
		t.Fatalf("%d target.yaml files", len(paths))
	}
	for _, path := range paths {
		fromSpec(t, filepath.Dir(path))
	}
}

// TestReferenceSDKCommand certifies the reference SDK through its tiny
// command, `resilcheck reference client` (reference-sdk/target.yaml), built
// for the test and put first on PATH: the same verdicts as in process.
func TestReferenceSDKCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds resilcheck")
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "resilcheck"), "../../cmd/resilcheck")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	c, p := fromSpec(t, "reference-sdk")
	certifyAgainst(t, "reference-sdk", c, p)
}
