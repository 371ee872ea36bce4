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

// TestKy certifies ky 1.14.3's retry through ky/target.yaml. It runs
// alone, before the package's parallel tests: ky does not jitter, and
// CL-13 fails its sixteen clients only while the spread their own
// start-up herd and the runner's delays add stays under 7 % (2.3-3.9 %
// alone or beside two CPU hogs; 9.4 %, inconclusive, beside another
// client's sixteen Node.js processes; 7.8 % beside another package's
// tests). In that gray zone CL-13 declines, which certifyAgainst accepts
// (declinedInGrayZone); a pass would be a miss.
func TestKy(t *testing.T) {
	prepareNode(t, "ky")
	c, p := fromSpec(t, "ky")
	certifyAgainst(t, "ky", c, p)
}

// TestAxiosRetry certifies axios with axios-retry through
// axios-retry/target.yaml, alone as TestKy is: its jitter (0-20 %) is
// near the least CL-13 passes, so CL-13 may decline: two rehearsals of
// eight saw its spread between the 7 % where it fails and the 9.9 % a
// pass needs (8.8 % in one).
func TestAxiosRetry(t *testing.T) {
	prepareNode(t, "axios-retry")
	c, p := fromSpec(t, "axios-retry")
	certifyAgainst(t, "axios-retry", c, p)
}
