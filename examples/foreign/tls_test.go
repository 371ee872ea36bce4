package foreign

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resilcheck/resilcheck/certify"
	"github.com/resilcheck/resilcheck/expect"
	"github.com/resilcheck/resilcheck/targets"
)

// TestZooTLS_certify certifies flask-orders with its provider behind a
// dependency proxy that serves TLS from the run's own CA: requests must
// verify it through REQUESTS_CA_BUNDLE, and every verdict must match
// expectations.yaml, for the checks it runs (those that fault the
// provider). The report must say the hop was intercepted.
func TestZooTLS_certify(t *testing.T) {
	if testing.Short() {
		t.Skip("certifies a process over TLS, about 20 s")
	}
	const name = "flask-orders-tls"
	if !zooSelected(name) {
		t.Skipf("RESILCHECK_ZOO does not name %s", name)
	}
	if _, err := lookRuntime("python3"); err != nil {
		zooSkip(t, "%s needs python3, which is not installed: %v", name, err)
	}
	want, err := expect.LoadVerdicts(filepath.Join(name, "expectations.yaml"), checkIDs())
	if err != nil {
		t.Fatal(err)
	}
	spec, err := targets.Load(filepath.Join(name, "target.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if why := prepareDebianPython(t, spec); why != "" {
		zooSkip(t, "%s", why)
	}
	var log strings.Builder
	res, err := certify.Run(context.Background(), certify.Config{Target: spec, Seed: want.Seed, Checks: want.Run, TargetLog: &log})
	if err != nil {
		t.Fatalf("certify: %v\n%s", err, log.String())
	}
	for _, ch := range res.Report.Checks {
		x := want.Checks[ch.ID]
		if ch.Status != x.Expect {
			t.Errorf("%s %s: want %s (%s); resilcheck: %s: expected %s; observed %s %s",
				name, ch.ID, x.Expect, x.Why, ch.Status, ch.Expected, ch.Observed, ch.Reason)
		}
	}
	if len(want.Run) == 0 || len(res.Report.Checks) != len(want.Run) {
		t.Errorf("%d checks ran, want the %d of the run list\n%s", len(res.Report.Checks), len(want.Run), log.String())
	}
	tls := res.Report.TLS
	if tls == nil || tls.Authority == "" || len(tls.Hops) != 1 || tls.Hops[0].Hop != "dependency:payments" || !tls.Hops[0].Terminated {
		t.Errorf("report TLS %+v, want the payments hop terminated with the run's CA", tls)
	}
	if !strings.HasPrefix(res.Report.Target.URLs["dependency:payments"], "https://") {
		t.Errorf("the payments proxy is at %s, want https", res.Report.Target.URLs["dependency:payments"])
	}
	if len(res.CA) == 0 {
		t.Error("no CA certificate to save beside the report")
	}
}
