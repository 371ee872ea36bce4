package certify

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/internal/reference/target"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// TestRun_lanes certifies the reference on three copies side by side: the
// verdicts are the serial run's, a defect is still caught, and the one
// journal the report keeps backs every check's evidence with the exchange
// it shows.
func TestRun_lanes(t *testing.T) {
	if testing.Short() {
		t.Skip("certifies the reference stack")
	}
	t.Parallel()
	kinds := launch.Kinds{targets.KindReference: target.Kind()}
	run := func(spec string, lanes int) *Result {
		t.Helper()
		tg, err := targets.Parse("lanes.yaml", []byte(spec), targets.WithKinds(kinds.Specs()))
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), Config{Target: tg, Kinds: kinds, Seed: 11, Lanes: lanes,
			Suites: []string{"idempotency", "rate-limit-headers"}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	statuses := func(r *Result) map[string]reports.Status {
		m := map[string]reports.Status{}
		for _, c := range r.Report.Checks {
			m[c.ID] = c.Status
		}
		return m
	}
	serial, laned := run("kind: reference\n", 1), run("kind: reference\n", 3)
	if got, want := statuses(laned), statuses(serial); len(got) != len(want) || len(got) == 0 {
		t.Fatalf("3 copies judged %d checks, serial %d", len(got), len(want))
	} else {
		for id, st := range want {
			if got[id] != st {
				t.Errorf("%s: %s on 3 copies, %s serially", id, got[id], st)
			}
		}
	}
	var order []string
	for _, c := range laned.Report.Checks {
		order = append(order, c.ID)
	}
	var serialOrder []string
	for _, c := range serial.Report.Checks {
		serialOrder = append(serialOrder, c.ID)
	}
	if !slices.Equal(order, serialOrder) {
		t.Errorf("report order on 3 copies %v; serially %v", order, serialOrder)
	}

	entries := laned.Journal.Snapshot()
	bySeq := map[uint64]faults.Entry{}
	ids, copies := map[string]bool{}, map[string]bool{}
	for i, e := range entries {
		if e.Seq != uint64(i+1) {
			t.Fatalf("run journal entry %d has seq %d", i, e.Seq)
		}
		if ids[e.ID] {
			t.Errorf("entry ID %s appears twice in the run journal", e.ID)
		}
		ids[e.ID] = true
		copies[strings.SplitN(e.ID, "-", 2)[0]] = true
		bySeq[e.Seq] = e
	}
	if len(copies) != 3 {
		t.Errorf("the run journal holds exchanges of copies %v; want c1, c2 and c3", slices.Collect(maps.Keys(copies)))
	}
	shown := 0
	for _, c := range laned.Report.Checks {
		for _, x := range c.Evidence {
			e, ok := bySeq[x.ID]
			if !ok || e.Method != x.Method || e.Path != x.Path || e.Status != x.Status || e.Side != x.Side {
				t.Errorf("%s: evidence %d (%s %s %d on %s) is not journal entry %+v", c.ID, x.ID, x.Method, x.Path, x.Status, x.Side, e)
			}
			shown++
		}
	}
	if shown == 0 {
		t.Error("no evidence to match against the merged journal")
	}
	if tol := laned.Report.Tolerances; !slices.ContainsFunc(tol, func(x reports.Tolerance) bool { return x.Name == "copies of the target" && x.Value == "3" }) {
		t.Errorf("the report does not say 3 copies ran: %v", tol)
	}

	defective := statuses(run("kind: reference\nreference: {defects: [racy-idempotency]}\n", 3))
	if defective["IK-07"] != reports.StatusFail {
		t.Errorf("racy-idempotency on 3 copies: IK-07 %s, want fail", defective["IK-07"])
	}
}

func TestConfig_checkLanes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		t     targets.Target
		lanes int
		ok    bool
	}{
		{"reference", targets.Target{Kind: targets.KindReference}, 4, true},
		{"process", targets.Target{Kind: targets.KindProcess}, 2, true},
		{"running, one copy", targets.Target{Kind: targets.KindRunning}, 1, true},
		{"running, the spec's", targets.Target{Kind: targets.KindRunning}, 0, true},
		{"running, two", targets.Target{Kind: targets.KindRunning}, 2, false},
		{"compose, two", targets.Target{Kind: targets.KindCompose}, 2, false},
		{"negative", targets.Target{Kind: targets.KindReference}, -1, false},
		{"fixed dependency address", targets.Target{Kind: targets.KindProcess, Dependencies: []targets.Dependency{{Name: "p", Listen: "127.0.0.1:9091"}}}, 2, false},
		{"port 0", targets.Target{Kind: targets.KindProcess, Dependencies: []targets.Dependency{{Name: "p", Listen: "127.0.0.1:0"}}}, 2, true},
	} {
		err := Config{Target: &c.t, Lanes: c.lanes}.checkLanes()
		if (err == nil) != c.ok || err != nil && !errors.Is(err, ErrConfig) {
			t.Errorf("%s: checkLanes = %v; want ok %v (an ErrConfig otherwise)", c.name, err, c.ok)
		}
	}
}

func TestLongestFirst(t *testing.T) {
	t.Parallel()
	checks := []check.Check{{ID: "A"}, {ID: "B", Timed: true}, {ID: "C", Explores: true}, {ID: "D"}, {ID: "E", Explores: true, Timed: true}, {ID: "F", Timed: true},
		{ID: "G", Takes: time.Second}, {ID: "H", Explores: true, Takes: 6 * time.Second}, {ID: "I", Timed: true, Takes: 5 * time.Second}}
	var got []string
	for _, i := range longestFirst(checks) {
		got = append(got, checks[i].ID)
	}
	if want := []string{"H", "C", "E", "I", "G", "B", "F", "A", "D"}; !slices.Equal(got, want) {
		t.Errorf("longestFirst = %v; want %v", got, want)
	}
}

// TestGang: an exploring check takes half the copies asked for, within
// [1, exploreCopies]; the lanes a run starts follow, so a replay narrowed
// to one property gives it as many workers as the whole run did.
func TestGang(t *testing.T) {
	t.Parallel()
	p, c := check.Check{Explores: true}, check.Check{}
	for _, tt := range []struct{ copies, gang, lanes int }{
		{0, 1, 1}, {1, 1, 1}, {2, 1, 1}, {3, 1, 1}, {4, 2, 2}, {5, 2, 2}, {8, 4, 4}, {10, 5, 5}, {12, 5, 5}, {16, 5, 5},
	} {
		if got := gang(p, tt.copies); got != tt.gang {
			t.Errorf("gang(property, %d) = %d, want %d", tt.copies, got, tt.gang)
		}
		if got := gang(c, tt.copies); got != 1 {
			t.Errorf("gang(check, %d) = %d, want 1", tt.copies, got)
		}
		if got := (Config{Target: &targets.Target{Concurrency: tt.copies}}).lanes([]check.Check{p}); got != tt.lanes {
			t.Errorf("lanes of one property, %d copies = %d, want %d", tt.copies, got, tt.lanes)
		}
	}
}

// TestRunLanes_gang: an exploring check runs with up to exploreCopies
// lanes, its own and the others lent (Harness.Beside), none shared with a
// check running meanwhile; a check that takes one lane gets none lent.
func TestRunLanes_gang(t *testing.T) {
	t.Parallel()
	lanes := make([]*check.Harness, 6)
	for i := range lanes {
		lanes[i] = &check.Harness{Journal: faults.NewJournal(), Seed: 1}
	}
	var mu sync.Mutex
	busy := map[*check.Harness]string{}
	copies := map[string]int{}
	var clash []string
	judge := func(ctx context.Context, c *check.Case) check.Result {
		hs := c.Harness.Copies()
		mu.Lock()
		copies[c.ID] = len(hs)
		for _, h := range hs {
			if other, ok := busy[h]; ok {
				clash = append(clash, c.ID+" and "+other)
			}
			busy[h] = c.ID
		}
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		for _, h := range hs {
			delete(busy, h)
		}
		mu.Unlock()
		return check.Pass("", "")
	}
	checks := []check.Check{{ID: "P", Explores: true, Run: judge}, {ID: "Q", Explores: true, Run: judge}, {ID: "A", Run: judge}, {ID: "B", Run: judge}, {ID: "C", Run: judge}}
	res := runLanes(t.Context(), lanes, 2*exploreCopies, faults.NewJournal(), checks, nil)
	for i, r := range res {
		if !r.ran {
			t.Errorf("%s did not run", checks[i].ID)
		}
	}
	if copies["P"] != exploreCopies || copies["Q"] != exploreCopies || copies["A"] != 1 {
		t.Errorf("copies each check drove: %v; want %d for the properties, 1 for the others", copies, exploreCopies)
	}
	if len(clash) > 0 {
		t.Errorf("checks shared a copy: %v", clash)
	}
}

// TestRunLanes_runWideLast: the checks that judge the whole run run after
// every other check, on the run journal; the others run on their lanes'.
func TestRunLanes_runWideLast(t *testing.T) {
	t.Parallel()
	run := faults.NewJournal()
	lanes := []*check.Harness{{Journal: faults.NewJournal(), Seed: 1}, {Journal: faults.NewJournal(), Seed: 1}}
	var mu sync.Mutex
	var order []string
	saw := map[string]*faults.Journal{}
	judge := func(ctx context.Context, c *check.Case) check.Result {
		mu.Lock()
		defer mu.Unlock()
		order = append(order, c.ID)
		saw[c.ID] = c.Journal
		return check.Pass("", "")
	}
	checks := []check.Check{{ID: "A", Run: judge}, {ID: "W", RunWide: true, Run: judge}, {ID: "B", Run: judge}, {ID: "C", Run: judge}}
	res := runLanes(t.Context(), lanes, len(lanes), run, checks, nil)
	for i, r := range res {
		if !r.ran || r.check.ID != checks[i].ID {
			t.Fatalf("result %d = %+v; want %s, ran", i, r, checks[i].ID)
		}
	}
	if order[len(order)-1] != "W" || saw["W"] != run || res[1].lane != -1 {
		t.Errorf("order %v, W saw the run journal %v, lane %d; want W last, on the run journal, lane -1", order, saw["W"] == run, res[1].lane)
	}
	for _, id := range []string{"A", "B", "C"} {
		if saw[id] != lanes[0].Journal && saw[id] != lanes[1].Journal {
			t.Errorf("%s ran on no lane's journal", id)
		}
	}
}
