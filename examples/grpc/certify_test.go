package grpc

import (
	"testing"

	"github.com/resilcheck/resilcheck/expect"
	"github.com/resilcheck/resilcheck/internal/zootest"
	"github.com/resilcheck/resilcheck/targets"
)

// services are the services certified: each a directory with its
// target.yaml, the runtimes its prepare.sh and command need, and, for a
// Go module whose target.yaml runs `go run .`, the binary prepare.sh
// builds in its place.
var services = []struct {
	dir      string
	runtimes []string
	binary   string // empty = run target.yaml's command as written
}{
	{dir: "payments-go", runtimes: []string{"go"}, binary: "payments-grpc"},
	{dir: "payments-node", runtimes: []string{"node", "npm"}},
	{dir: "payments-go-grpcledger", runtimes: []string{"go"}, binary: "payments-grpc"},
}

// TestGRPCServices_certify certifies each service through its
// target.yaml once per variant of its expectations.yaml (the variant's
// break passed as -break), each check ending as the file says.
func TestGRPCServices_certify(t *testing.T) {
	for _, s := range services {
		opts := zootest.Options{Runtimes: s.runtimes}
		if s.binary != "" {
			opts.Variant = func(t *testing.T, spec *targets.Target, _ expect.Variant) {
				zootest.UseBinary(t, spec, s.binary)
			}
		}
		zootest.CertifyDirsWith(t, []string{s.dir}, opts)
	}
}
