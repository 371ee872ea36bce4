package grpc

import (
	"slices"
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
		opts := zootest.Options{Runtimes: s.runtimes, Variant: func(t *testing.T, spec *targets.Target, v expect.Variant) {
			if s.binary != "" {
				zootest.UseBinary(t, spec, s.binary)
			}
			specChange(t, spec, v)
		}}
		zootest.CertifyDirsWith(t, []string{s.dir}, opts)
	}
}

// specChange makes the change to spec that variant v names (expect's
// spec field): encoded-messages has the operation send create.binpb, and
// create-other-amount.binpb as its changed payload, in place of its JSON
// body and proto; ledger-tls has the ledger's dependency proxy serve TLS
// from the run's authority. Any other change is unknown. The spec is then
// validated, as a user's written so would be.
func specChange(t *testing.T, spec *targets.Target, v expect.Variant) {
	switch v.Spec {
	case "":
		return
	case "encoded-messages":
		g := &spec.Operations[0].GRPC
		g.Proto, g.Request, g.Message, g.AltMessage = "", "", "create.binpb", "create-other-amount.binpb"
		spec.Operations[0].Body = ""
	case "ledger-tls":
		i := slices.IndexFunc(spec.Dependencies, func(d targets.Dependency) bool { return d.Name == "ledger" })
		if i < 0 {
			t.Fatalf("variant %s: %s has no ledger dependency", v.Name, spec.Dir)
		}
		spec.Dependencies[i].TLS = true
	default:
		t.Fatalf("variant %s: no spec change %q", v.Name, v.Spec)
	}
	if err := spec.Validate(); err != nil {
		t.Fatalf("variant %s: %v", v.Name, err)
	}
}
