package clients_test

import (
	"os/exec"
	"testing"
)

// prepareNode skips the test without node, and runs dir/prepare.sh, as
// resilcheck matrix does: it installs the locked npm packages once. It
// skips the test, saying why, when the install fails (no registry).
func prepareNode(t *testing.T, dir string) {
	t.Helper()
	needs(t, "node")
	if testing.Short() {
		t.Skip("certifies a real client: waits out Retry-After and backoffs, up to 20 s")
	}
	cmd := exec.Command("bash", "prepare.sh")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("%s/prepare.sh failed (no npm registry?): %v\n%s", dir, err, out)
	}
}

// TestKy certifies ky 1.14.3's retry through ky/target.yaml.
func TestKy(t *testing.T) {
	t.Parallel()
	prepareNode(t, "ky")
	c, p := fromSpec(t, "ky")
	certifyAgainst(t, "ky", c, p)
}

// TestAxiosRetry certifies axios with axios-retry through
// axios-retry/target.yaml.
func TestAxiosRetry(t *testing.T) {
	t.Parallel()
	prepareNode(t, "axios-retry")
	c, p := fromSpec(t, "axios-retry")
	certifyAgainst(t, "axios-retry", c, p)
}
