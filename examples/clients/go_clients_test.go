package clients_test

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/resilcheck/resilcheck/clients"
)

// goClient builds the Go client command in dir once, into the test's
// temporary directory, and returns dir/target.yaml's command running that
// binary (in place of the .bin/ one prepare.sh builds for resilcheck
// matrix) and its policy.
func goClient(t *testing.T, dir string) (clients.Command, clients.Policy) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and certifies a real client: waits out Retry-After and backoffs, up to 20 s")
	}
	c, p := fromSpec(t, dir)
	bin := filepath.Join(t.TempDir(), dir)
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", dir, err, out)
	}
	c.Argv[0] = bin
	return c, p
}

// TestRetryableHTTP certifies hashicorp/go-retryablehttp v0.7.8 through
// retryablehttp/target.yaml, the command resilcheck matrix runs. (How a Go
// team certifies a client in process, clients.Func, TestReferenceSDK
// shows.)
func TestRetryableHTTP(t *testing.T) {
	t.Parallel()
	c, p := goClient(t, "retryablehttp")
	certifyAgainst(t, "retryablehttp", c, p)
}

// TestFailsafeHTTP certifies failsafe-go v0.9.8's failsafehttp through
// failsafehttp/target.yaml.
func TestFailsafeHTTP(t *testing.T) {
	t.Parallel()
	c, p := goClient(t, "failsafehttp")
	certifyAgainst(t, "failsafehttp", c, p)
}
