package grpc

import (
	"path/filepath"
	"testing"

	"github.com/resilcheck/resilcheck/expect"
	"github.com/resilcheck/resilcheck/internal/zootest"
	"github.com/resilcheck/resilcheck/targets"
)

// services are the directories of the services certified, each a Go
// module of its own whose target.yaml runs `go run .`: prepare.sh builds
// it as binaries names.
var services = []string{"payments-go"}

// binaries names the binary each service's prepare.sh builds.
var binaries = map[string]string{"payments-go": "payments-grpc"}

// TestGRPCServices_certify certifies each service through its
// target.yaml once per variant of its expectations.yaml (the variant's
// break passed as -break), running the binary prepare.sh built, each
// check ending as the file says.
func TestGRPCServices_certify(t *testing.T) {
	zootest.CertifyDirsWith(t, services, zootest.Options{Runtimes: []string{"go"},
		Variant: func(t *testing.T, spec *targets.Target, _ expect.Variant) {
			zootest.UseBinary(t, spec, binaries[filepath.Base(spec.Dir)])
		}})
}
