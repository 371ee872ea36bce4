package certify

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/resilcheck/resilcheck/check/builtin"
	"github.com/resilcheck/resilcheck/internal/keepfailed"
	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/internal/reference/defect"
	"github.com/resilcheck/resilcheck/internal/reference/target"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// matrixWorkers certifications run at once, each on the reference kind's
// twelve copies: a whole certification spends about 17 s, mostly waiting,
// and about 14 s of CPU, so two at a time keep 2 cores from saturating.
const matrixWorkers = 2

// fullMatrix, set by RESILCHECK_FULL_MATRIX=1, certifies every defect on
// every suite, as TestMatrix did before its cases were cut (about 390 s
// against 130 s on 2 cores): a check of another suite that a defect
// starts failing, unlisted, shows there first.
var fullMatrix = os.Getenv("RESILCHECK_FULL_MATRIX") == "1"

// TestMatrix certifies the correct reference on every suite (every check
// passes: no false positives) and the reference with each defect on the
// suites matrixSuites names (exactly the expected checks fail: detection).
// It is the harness's own correctness bar, and it takes the path of
// `certify -f`: each case is a kind-reference spec, parsed from YAML like a
// user's file and handed to Run.
func TestMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("certifies the reference stack 31 times")
	}
	matrix := target.Matrix()
	cases := []defect.Name{""}
	for _, d := range defect.All() {
		if matrix[d.Name].Direct == "" { // the others are proven by the test Direct names
			cases = append(cases, d.Name)
		}
	}
	results := certifyAll(t, cases, matrix)
	components := map[defect.Name]string{}
	for _, d := range defect.All() {
		components[d.Name] = d.Component
	}
	for i, d := range cases {
		t.Run(caseName(d), func(t *testing.T) {
			results[i].judge(t, func(rep *reports.Report) {
				failed := judgeMatrixCase(t, d, rep, matrix[d], cmp.Or(matrix[d].Tier, components[d]))
				if got := rep.Target; got.Kind != "reference" || !slices.Equal(got.Defects, defectNames(d)) {
					t.Errorf("report target = %+v; want kind reference with defects %v", got, defectNames(d))
				}
				t.Logf("failed: %v (%s, seed %d)", failed, rep.Duration, rep.Seed)
			})
		})
	}
}

// maxNoisy is the most checks one case may leave inconclusive on a noisy
// runner (each after three disturbed runs): CI runners share their cores.
const maxNoisy = 2

// judgeMatrixCase holds the report of the reference certified with defect
// d to want: every failure allowed and laid at tier, no check inconclusive
// but those want leaves nothing to judge and at most maxNoisy the runner's
// stalls left unjudged where want requires no failure, and every check
// want.Must names failed. It returns the checks that failed.
func judgeMatrixCase(t *testing.T, d defect.Name, rep *reports.Report, want target.Expectation, tier string) []string {
	t.Helper()
	// An aborted run reports no check, which would read as no failure.
	if rep.Aborted != "" || rep.Interrupted != "" || len(rep.Checks) == 0 {
		t.Fatalf("the run judged no check (verdict %s): aborted %q, interrupted %q", rep.Verdict, rep.Aborted, rep.Interrupted)
	}
	var failed, noisy []string
	for _, c := range rep.Checks {
		switch {
		case c.Status == reports.StatusFail:
			failed = append(failed, c.ID)
			if !want.Allows(c.ID) {
				t.Errorf("%s failed unexpectedly: expected %s; observed %s", c.ID, c.Expected, c.Observed)
			}
			// The stack runs as two tiers: every failure names the
			// one the defect lives in.
			if c.Tier != tier {
				t.Errorf("%s laid at tier %q; the defect is in the %s: %s", c.ID, c.Tier, tier, c.Observed)
			}
		case c.Status == reports.StatusInconclusive && c.Noisy && !slices.Contains(want.Must, c.ID):
			// Neither a false positive nor a miss: the check declined to
			// judge what the runner's stalls, run after run, disturbed,
			// as it must. Bounded, so a check that never judges is seen.
			noisy = append(noisy, c.ID)
			t.Logf("%s inconclusive (not required here): %s", c.ID, c.Reason)
		case c.Status == reports.StatusInconclusive && slices.Contains(want.Must, c.ID) && failedEveryRun(rep, c.ID):
			// Judged with want.Must below.
		case c.Status == reports.StatusInconclusive && !slices.Contains(want.Vacuous, c.ID):
			t.Errorf("%s inconclusive: %s", c.ID, c.Reason)
		}
	}
	if len(noisy) > maxNoisy {
		t.Errorf("%d checks inconclusive on a noisy runner (%v), more than the %d a busy CI runner explains", len(noisy), noisy, maxNoisy)
	}
	for _, id := range want.Must {
		switch {
		case slices.Contains(failed, id):
		case failedEveryRun(rep, id) && len(noisy) < maxNoisy:
			// Caught: its first and last runs failed, and the report
			// rightly declines to certify a failure the runner's stalls
			// disturbed each time. Bounded with the noisy ones above.
			noisy = append(noisy, id)
			t.Logf("%s caught %s in its first and last runs, each disturbed (inconclusive): %s", id, d, verdictOf(rep, id))
		default:
			t.Errorf("%s did not catch %s (failed: %v): %s", id, d, failed, verdictOf(rep, id))
		}
	}
	return failed
}

// failedEveryRun reports whether check id ended inconclusive on a noisy
// runner after its first and last runs both failed (check.noisy's
// wording): a Must check that caught the defect each time it was asked,
// under stalls that made none of its failures certain.
func failedEveryRun(rep *reports.Report, id string) bool {
	for _, c := range rep.Checks {
		if c.ID == id {
			return c.Status == reports.StatusInconclusive && c.Noisy &&
				strings.Contains(c.Reason, "the first run failed") && strings.Contains(c.Reason, "; the last failed: ")
		}
	}
	return false
}

// verdictOf says what the report holds on check id, for a failure message.
func verdictOf(rep *reports.Report, id string) string {
	for _, c := range rep.Checks {
		if c.ID == id {
			return fmt.Sprintf("%s; observed %q; reason %q", c.Status, c.Observed, c.Reason)
		}
	}
	return "not in the report"
}

func caseName(d defect.Name) string {
	if d == "" {
		return "correct-reference"
	}
	return string(d)
}

func defectNames(d defect.Name) []string {
	if d == "" {
		return nil
	}
	return []string{string(d)}
}

// doubtful says rep may fail judgeMatrixCase against want: a failure
// want does not allow, a check inconclusive, or one it requires that did
// not fail. Only such a case's journal is held for diagnosis.
func doubtful(want target.Expectation, rep *reports.Report) bool {
	for _, c := range rep.Checks {
		switch {
		case c.Status == reports.StatusFail && !want.Allows(c.ID),
			c.Status == reports.StatusInconclusive && !slices.Contains(want.Vacuous, c.ID),
			c.Status != reports.StatusFail && slices.Contains(want.Must, c.ID):
			return true
		}
	}
	return rep.Aborted != "" || len(rep.Checks) == 0
}

// referenceSpec is the spec a user writes to certify the reference with
// defect d switched on.
func referenceSpec(d defect.Name) string {
	spec := "version: 1\nkind: reference\n"
	if d != "" {
		spec += fmt.Sprintf("reference:\n  defects: [%s]\n", d)
	}
	return spec
}

type certified struct {
	report  *reports.Report
	journal keepfailed.Journal // held until the case is judged
	err     error
}

// judge has judge hold res's report to its case in t; when t fails, the
// journal and the report are kept for diagnosis, else the journal dropped.
func (res certified) judge(t *testing.T, judge func(*reports.Report)) {
	t.Helper()
	t.Cleanup(func() {
		if t.Failed() {
			res.journal.Keep(t)
		} else {
			res.journal.Drop()
		}
	})
	if res.err != nil {
		t.Fatalf("Run: %v", res.err)
	}
	judge(res.report)
	if t.Failed() {
		keepfailed.Report(t, res.report)
	}
}

// certifyAll certifies the reference once per defect, on the suites
// matrixSuites names, matrixWorkers at a time.
func certifyAll(t *testing.T, cases []defect.Name, matrix map[defect.Name]target.Expectation) []certified {
	t.Helper()
	suites := make([][]string, len(cases))
	for i, d := range cases {
		var err error
		if suites[i], err = matrixSuites(d, matrix[d]); err != nil {
			t.Fatal(err)
		}
	}
	return inOrder(len(cases), func(i int) certified {
		return certifyOne(cases[i], 20261122+uint64(i), suites[i])
	})
}

// matrixSuites are the suites defect d is certified on, in the order a
// whole run takes them: its contract's and every suite with a check want
// names (nil, every suite, for the correct stack or under fullMatrix). A
// whole certification takes about 20 s and one suite 2–8 s, and a defect
// shows in the suites of the code it breaks: its contract's, and those CI
// has seen it fail, which want lists. The correct stack, certified whole,
// holds every suite to no false positive.
func matrixSuites(d defect.Name, want target.Expectation) ([]string, error) {
	if d == "" || fullMatrix {
		return nil, nil
	}
	info, _ := defect.Lookup(d)
	need := map[string]bool{info.Contract: true}
	for _, id := range slices.Concat(want.Must, want.May, want.Vacuous) {
		s := suiteOf(id)
		if s == "" {
			return nil, fmt.Errorf("defect %s: the matrix names %s, a check of no built-in suite", d, id)
		}
		need[s] = true
	}
	var out []string
	for _, s := range builtin.Suites() {
		if need[s.Name] {
			out = append(out, s.Name)
		}
	}
	return out, nil
}

// suiteOf is the name of the built-in suite holding check id, "" if none.
func suiteOf(id string) string { return suiteByCheck()[id] }

// suiteByCheck maps every built-in check's ID to its suite's name.
var suiteByCheck = sync.OnceValue(func() map[string]string {
	out := map[string]string{}
	for _, s := range builtin.Suites() {
		for _, c := range s.Checks {
			out[c.ID] = s.Name
		}
	}
	return out
})

// inOrder runs certify for every index below n, matrixWorkers at a time,
// handing the indexes out in order (callers put the longest case first),
// and returns the results by index. Every matrix of this package shares
// it, so a package go test runs beside certify meets the same load
// throughout: eight at a time stalled that package's timed checks up to
// 652 ms in a CI rehearsal, and four left a Node client's and a Python
// service's timing verdicts to a starved runner.
func inOrder(n int, certify func(i int) certified) []certified {
	out := make([]certified, n)
	work := make(chan int)
	var wg sync.WaitGroup
	for range matrixWorkers {
		wg.Go(func() {
			for i := range work {
				out[i] = certify(i)
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	return out
}

func certifyOne(d defect.Name, seed uint64, suites []string) certified {
	kinds := launch.Kinds{targets.KindReference: target.Kind()}
	tg, err := targets.Parse(caseName(d)+".yaml", []byte(referenceSpec(d)), targets.WithKinds(kinds.Specs()))
	if err != nil {
		return certified{err: err}
	}
	res, err := Run(context.Background(), Config{Target: tg, Kinds: kinds, Seed: seed, Suites: suites})
	if err != nil {
		return certified{err: err}
	}
	out := certified{report: res.Report}
	if doubtful(target.Matrix()[d], res.Report) {
		// Written now, as the case is judged only once every case has run
		// and a whole journal (about 30 MB) is too much to hold 31 times.
		out.journal = keepfailed.Hold("TestMatrix/"+caseName(d), seed, res.Journal)
	}
	return out
}
