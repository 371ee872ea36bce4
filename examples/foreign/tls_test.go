package foreign

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resilcheck/resilcheck/certify"
	"github.com/resilcheck/resilcheck/expect"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// tlsZoo are zoo services certified over TLS, each with the hops its
// report must name. Their expectations name a run list: the checks that
// fault the provider; the rest are the plain services' own.
var tlsZoo = []struct {
	name, runtime string
	prepare       func(t *testing.T, spec *targets.Target) string
	hops          []reports.TLSHop
}{
	{"flask-orders-tls", "python3", prepareDebianPython, []reports.TLSHop{{Hop: "dependency:payments", Terminated: true, StandIn: true}}},
	{"stdlib-orders-tls", "python3", nil, []reports.TLSHop{{Hop: "front", Upstream: "CA file service-cert.pem"}, {Hop: "dependency:provider", Terminated: true, StandIn: true}}},
}

// TestZooTLS_certify certifies services whose provider sits behind a
// dependency proxy serving TLS from the run's own CA (their clients must
// verify it through the variables resilcheck sets), and one that serves
// https itself behind the front proxy; every verdict must match
// expectations.yaml, and the report must name the intercepted hops.
func TestZooTLS_certify(t *testing.T) {
	if testing.Short() {
		t.Skip("certifies processes over TLS, about 6 s each")
	}
	for _, s := range tlsZoo {
		t.Run(s.name, func(t *testing.T) {
			if !zooSelected(s.name) {
				t.Skipf("RESILCHECK_ZOO does not name %s", s.name)
			}
			if _, err := lookRuntime(s.runtime); err != nil {
				zooSkip(t, "%s needs %s, which is not installed: %v", s.name, s.runtime, err)
			}
			want, err := expect.LoadVerdicts(filepath.Join(s.name, "expectations.yaml"), checkIDs())
			if err != nil {
				t.Fatal(err)
			}
			spec, err := targets.Load(filepath.Join(s.name, "target.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if s.prepare != nil {
				if why := s.prepare(t, spec); why != "" {
					zooSkip(t, "%s", why)
				}
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
						s.name, ch.ID, x.Expect, x.Why, ch.Status, ch.Expected, ch.Observed, ch.Reason)
				}
			}
			if len(want.Run) == 0 || len(res.Report.Checks) != len(want.Run) {
				t.Errorf("%d checks ran, want the %d of the run list\n%s", len(res.Report.Checks), len(want.Run), log.String())
			}
			if tls := res.Report.TLS; tls == nil || tls.Authority == "" || fmt.Sprint(tls.Hops) != fmt.Sprint(s.hops) || len(res.CA) == 0 {
				t.Errorf("report TLS %+v, want hops %v under the run's CA, and its certificate kept", tls, s.hops)
			}
			keepFailed(t, res)
		})
	}
}
