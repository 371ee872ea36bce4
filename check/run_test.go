package check

import (
	"context"
	"fmt"
	"testing"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
)

// TestRun_suiteEvidence: a suite's Evidence hook makes the report's
// evidence of its checks, whole; the kit's own samples a long one and draws
// its load, and other suites keep it.
func TestRun_suiteEvidence(t *testing.T) {
	ev := make([]faults.Entry, 120)
	for i := range ev {
		ev[i] = faults.Entry{Seq: uint64(i + 1), Side: "front", Path: fmt.Sprintf("/p/%d", i), Status: 200}
	}
	judge := func(context.Context, *Case) Result { return Pass("all", "all", ev...) }
	own := Suite{Name: "own", Checks: []Check{{ID: "OW-01", Suite: "own", Run: judge}},
		Evidence: func(ev []faults.Entry) []reports.Exchange {
			out := make([]reports.Exchange, len(ev))
			for i, e := range ev {
				out[i] = reports.Exchange{ID: e.Seq, Case: "c" + e.Path}
			}
			return out
		}}
	kit := Suite{Name: "kit", Checks: []Check{{ID: "KT-01", Suite: "kit", Run: judge}}}
	h := quietHarness()
	h.Suites = []Suite{own, kit}
	got := Run(context.Background(), h, append(own.Checks, kit.Checks...), nil)
	if len(got) != 2 {
		t.Fatalf("%d checks reported; want 2", len(got))
	}
	if o := got[0]; len(o.Evidence) != len(ev) || o.EvidenceTotal != 0 || o.Load != nil || o.Evidence[0].Case != "c/p/0" {
		t.Errorf("own suite: %d exchanges (total %d, load %v, first case %q); want all %d as its hook made them",
			len(o.Evidence), o.EvidenceTotal, o.Load != nil, o.Evidence[0].Case, len(ev))
	}
	if k := got[1]; len(k.Evidence) != maxEvidence || k.EvidenceTotal != len(ev) {
		t.Errorf("kit suite: %d exchanges of %d; want a sample of %d of %d", len(k.Evidence), k.EvidenceTotal, maxEvidence, len(ev))
	}
}

// TestJudge_noOperations: on a target that declares no operations only the
// checks of suites that bring their own traffic run; the others are not
// applicable, saying why.
func TestJudge_noOperations(t *testing.T) {
	judge := func(context.Context, *Case) Result { return Pass("ran", "ran") }
	own := Suite{Name: "own", OwnTraffic: true, Checks: []Check{{ID: "OW-01", Suite: "own", Run: judge}}}
	kit := Suite{Name: "kit", Checks: []Check{{ID: "KT-01", Suite: "kit", Run: judge}}}
	for _, tc := range []struct {
		name         string
		noOperations bool
		want         map[string]reports.Status
	}{
		{"operations declared", false, map[string]reports.Status{"OW-01": reports.StatusPass, "KT-01": reports.StatusPass}},
		{"none declared", true, map[string]reports.Status{"OW-01": reports.StatusPass, "KT-01": reports.StatusNotApplicable}},
	} {
		h := quietHarness()
		h.Suites, h.NoOperations = []Suite{own, kit}, tc.noOperations
		for _, c := range append(own.Checks, kit.Checks...) {
			if r := Judge(context.Background(), h, c); r.Status != tc.want[c.ID] {
				t.Errorf("%s: %s %s (%s); want %s", tc.name, c.ID, r.Status, r.Reason, tc.want[c.ID])
			}
		}
	}
}

// TestExchange_upstreamGRPCNote: an upstream copy whose grpc-status the
// journal does not know is "unread" in the evidence note, not -1.
func TestExchange_upstreamGRPCNote(t *testing.T) {
	e := faults.Entry{Side: "dependency", Status: 200, UpstreamStatuses: []int{200, 200}, UpstreamGRPCStatuses: []int{-1, 14}}
	if got, want := exchange(e).Note, "upstream [200 200]; upstream grpc-status [unread 14]"; got != want {
		t.Errorf("note %q, want %q", got, want)
	}
}
