package outbox

import (
	"path/filepath"
	"testing"

	"github.com/resilcheck/resilcheck/expect"
	"github.com/resilcheck/resilcheck/internal/pgtest"
	"github.com/resilcheck/resilcheck/internal/zootest"
	"github.com/resilcheck/resilcheck/targets"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// services are the directories of the services certified, each a Go
// module of its own whose target.yaml runs `go run .`: prepare.sh builds
// it as the directory's name says.
var services = []string{"watermill-go"}

// binaries names the binary each service's prepare.sh builds.
var binaries = map[string]string{"watermill-go": "watermill-outbox"}

// TestOutboxServices_certify certifies each service through its
// target.yaml once per variant of its expectations.yaml (the variant's
// break passed as -break), running the binary prepare.sh built, each on
// an empty PostgreSQL database of its own handed over as DATABASE_URL,
// each check ending as the file says.
func TestOutboxServices_certify(t *testing.T) {
	zootest.CertifyDirsWith(t, services, zootest.Options{Runtimes: []string{"go"},
		Variant: func(t *testing.T, spec *targets.Target, _ expect.Variant) {
			zootest.UseBinary(t, spec, binaries[filepath.Base(spec.Dir)])
			if spec.Process.Env == nil {
				spec.Process.Env = map[string]string{}
			}
			spec.Process.Env["DATABASE_URL"] = pgtest.DSN(t)
		}})
}
