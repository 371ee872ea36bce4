package certify

import (
	"log/slog"
	"testing"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// TestEnvironment_addDependency: with no ledger the harness fails the
// first dependency placed, which need not be the first declared (a
// launcher places its own later); whether it is gRPC is that one's, so
// the retry-after checks speak its protocol to it.
func TestEnvironment_addDependency(t *testing.T) {
	t.Parallel()
	orders := targets.Dependency{Name: "orders"} // started by the launcher: placed last
	ledger := targets.Dependency{Name: "ledger", GRPC: ledgerGRPC}
	env := &environment{
		spec:    &targets.Target{Dir: "testdata", Dependencies: []targets.Dependency{orders, ledger}},
		seed:    1,
		journal: faults.NewJournal(),
		log:     slog.New(slog.DiscardHandler),
		target:  reports.Target{URLs: map[string]string{}},
		tls:     &runTLS{},
	}
	t.Cleanup(env.close)
	first, err := env.addDependency(ledger, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.addDependency(orders, ""); err != nil {
		t.Fatal(err)
	}
	if env.dep != first || !env.depGRPC {
		t.Errorf("the harness fails %v (gRPC %v); want the gRPC ledger's proxy, placed first, as gRPC", env.dep.URL(), env.depGRPC)
	}
}
