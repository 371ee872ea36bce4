package engine_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestActionInstall: the GitHub Action's install step, given a kind
// compose spec, builds resilcheck and its compose helper side by side from
// the checkout, where certify looks for the helper. No engine is needed.
func TestActionInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds both binaries")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "bin", "resilcheck")
	cmd := exec.Command("bash", filepath.Join(root, ".github", "actions", "certify.sh"), "install")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "RC_BIN="+bin, "RC_SOURCE="+root, "RC_VERSION=source",
		"RC_SPEC="+filepath.Join("examples", "compose", "target.yaml"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("certify.sh install: %v\n%s", err, out)
	}
	for _, name := range []string{"resilcheck", "resilcheck-compose"} {
		if fi, err := os.Stat(filepath.Join(filepath.Dir(bin), name)); err != nil || fi.Mode()&0o111 == 0 {
			t.Errorf("%s: %v; want an executable beside resilcheck", name, err)
		}
	}
}
