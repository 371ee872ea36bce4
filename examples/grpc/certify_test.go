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
	{dir: "payments-go-nginx", runtimes: []string{"go", "nginx"}},
}

// TestGRPCServices_certify certifies each service through its
// target.yaml once per variant of its expectations.yaml (the variant's
// break passed as -break), each check ending as the file says.
func TestGRPCServices_certify(t *testing.T) {
	for _, s := range services {
		opts := zootest.Options{Runtimes: s.runtimes}
		if s.binary != "" {
			opts.Variant = func(t *testing.T, spec *targets.Target, v expect.Variant) {
				zootest.UseBinary(t, spec, s.binary)
				encodedMessages(t, spec, v)
			}
		}
		zootest.CertifyDirsWith(t, []string{s.dir}, opts)
	}
}

// encodedMessages makes the operation of the variant with spec
// encoded-messages send create.binpb, and create-other-amount.binpb as
// its changed payload, in place of its JSON body and proto; any other
// spec change is unknown.
func encodedMessages(t *testing.T, spec *targets.Target, v expect.Variant) {
	switch v.Spec {
	case "":
	case "encoded-messages":
		g := &spec.Operations[0].GRPC
		g.Proto, g.Request, g.Message, g.AltMessage = "", "", "create.binpb", "create-other-amount.binpb"
		spec.Operations[0].Body = ""
		// As a user's spec written so would be, before it runs.
		if err := spec.Validate(); err != nil {
			t.Fatalf("variant %s: %v", v.Name, err)
		}
	default:
		t.Fatalf("variant %s: no spec change %q", v.Name, v.Spec)
	}
}
