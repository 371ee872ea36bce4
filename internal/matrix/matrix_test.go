package matrix

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/expect"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

var update = flag.Bool("update", false, "update testdata/*.golden.* files")

// golden compares got with testdata/<test name>.golden.<ext>, rewriting it
// under -update.
func golden(t *testing.T, ext string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", strings.ReplaceAll(t.Name(), "/", "_")+".golden."+ext)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/matrix -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run go test ./internal/matrix -update after checking)", path)
	}
}

var (
	pass = reports.StatusPass
	fail = reports.StatusFail
	inc  = reports.StatusInconclusive
	na   = reports.StatusNotApplicable
)

// sample is a matrix of three targets: a service with a disagreement and
// an unstable cell, a client, and one that was not certified.
func sample() *Matrix {
	return &Matrix{
		Seed: 42, Runs: 2, Started: time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC), Took: reports.Duration(95 * time.Second), Version: "v1.2.3",
		Columns: []Column{
			{ID: "IK-03", Suite: "idempotency", Title: "A fresh key | once", Level: reports.LevelMust},
			{ID: "HS-02", Suite: "retry-after", Title: "Retry-After on 503", Level: reports.LevelRecommended},
			{ID: "CL-01", Suite: "clients", Title: "At most max attempts", Level: reports.LevelMust},
		},
		Rows: []Row{
			{Name: "orders <svc>", Dir: "examples/orders", Kind: "process", Versions: map[string]string{"fastify": "5.1.0", "got": "14.4.9"},
				Reports: []string{"orders <svc>/run-1", "orders <svc>/run-2"}, Seeds: []uint64{10, 10},
				Cells: map[string]Cell{
					"IK-03": {Status: fail, Runs: []reports.Status{fail, fail}, Tier: "nginx", Expected: []reports.Status{pass}, Agrees: false,
						Observed: "2 effects for one key | *bold*", Link: "orders%20%3Csvc%3E/run-1/report.html#check-IK-03"},
					"HS-02": {Status: pass, Runs: []reports.Status{pass, inc}, Expected: []reports.Status{pass}, Why: "", Agrees: false, Unstable: true,
						Link: "orders%20%3Csvc%3E/run-1/report.html#check-HS-02"},
				}},
			{Name: "curl", Dir: "examples/clients/curl", Kind: "client", Reports: []string{"curl/run-1", "curl/run-2"}, Seeds: []uint64{71, 72},
				Cells: map[string]Cell{
					"CL-01": {Status: na, Runs: []reports.Status{na, na}, Expected: []reports.Status{na}, Why: "declares no cap", Agrees: true,
						Link: "curl/run-1/report.html#check-CL-01"},
				}},
			{Name: "broken", Dir: "examples/broken", Kind: "process", Error: "run 1: the target never became healthy"},
		},
		Skipped: []string{"examples/tour"},
	}
}

func TestWriteMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMarkdown(&b, sample()); err != nil {
		t.Fatal(err)
	}
	golden(t, "md", b.Bytes())
}

func TestWriteHTML(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, sample()); err != nil {
		t.Fatal(err)
	}
	if _, err := html.Parse(bytes.NewReader(b.Bytes())); err != nil {
		t.Fatalf("not HTML: %v", err)
	}
	if strings.Contains(b.String(), "<svc>") {
		t.Error("a target's name reached the page unescaped")
	}
	golden(t, "html", b.Bytes())
}

func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, sample()); err != nil {
		t.Fatal(err)
	}
	var back Matrix
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if c, r := back.Disagreements(); c != 2 || r != 1 || back.Unstable() != 1 {
		t.Errorf("read back: %d cells and %d rows disagree, %d unstable; want 2, 1, 1", c, r, back.Unstable())
	}
	golden(t, "json", b.Bytes())
}

func TestMatrix_Verdict(t *testing.T) {
	want := "3 targets, 3 cells: 2 disagree with their expectations, 1 unstable, 1 target not certified"
	if got := sample().Verdict(); got != want {
		t.Errorf("Verdict() = %q, want %q", got, want)
	}
}

func TestJudge(t *testing.T) {
	rep := func(s reports.Status, tier string) *reports.Report {
		return &reports.Report{Checks: []reports.Check{{ID: "IK-03", Status: s, Tier: tier, Observed: "seen"}}}
	}
	failAt := func(tier string) *expect.Target {
		return &expect.Target{Checks: map[string]expect.Want{"IK-03": {Allowed: []reports.Status{fail}, Why: "no key", Tier: tier}}}
	}
	passes := &expect.Target{}
	tests := []struct {
		name             string
		want             *expect.Target
		reps             []*reports.Report
		agrees, unstable bool
		link             string // the run shown: the first, or the first that disagrees
	}{
		{"agrees", failAt(""), []*reports.Report{rep(fail, ""), rep(fail, "")}, true, false, "svc/run-1/report.html#check-IK-03"},
		{"wrong tier", failAt("gateway"), []*reports.Report{rep(fail, "service")}, false, false, "svc/run-1/report.html#check-IK-03"},
		{"right tier", failAt("gateway"), []*reports.Report{rep(fail, "gateway")}, true, false, "svc/run-1/report.html#check-IK-03"},
		{"unstable, the second off", passes, []*reports.Report{rep(pass, ""), rep(inc, "")}, false, true, "svc/run-2/report.html#check-IK-03"},
		{"tier moved", failAt(""), []*reports.Report{rep(fail, "gateway"), rep(fail, "service")}, true, true, "svc/run-1/report.html#check-IK-03"},
		{"missing", passes, []*reports.Report{{}}, false, false, "svc/run-1/report.html#check-IK-03"},
	}
	for _, tt := range tests {
		rels := []string{"svc/run-1", "svc/run-2"}[:len(tt.reps)]
		c := judge(System{Want: tt.want}, "IK-03", tt.reps, rels)
		if c.Agrees != tt.agrees || c.Unstable != tt.unstable {
			t.Errorf("%s: agrees %v unstable %v; want %v %v (%+v)", tt.name, c.Agrees, c.Unstable, tt.agrees, tt.unstable, c)
		}
		if c.Link != tt.link {
			t.Errorf("%s: link %q, want %q", tt.name, c.Link, tt.link)
		}
	}
}

func TestTargetSeed(t *testing.T) {
	a, b, c := TargetSeed(7, "x", 1), TargetSeed(7, "x", 2), TargetSeed(7, "y", 1)
	if a == b || a == c || a != TargetSeed(7, "x", 1) {
		t.Errorf("seeds %d %d %d: want distinct per target and run, and the same again", a, b, c)
	}
}

// catalogue is a small catalogue for discovery tests.
var catalogue = Catalogue{
	Service: []check.Entry{{ID: "IK-03", Suite: "idempotency"}, {ID: "HS-02", Suite: "retry-after"}},
	Client:  []check.Entry{{ID: "CL-01", Suite: "clients"}},
}

const processSpec = `version: 1
name: %s
kind: process
service: {url: "http://127.0.0.1:{{.Port}}", front: direct}
process: {command: ["./run.sh", "{{.Port}}"]}
operations: [{name: op, method: POST, path: /x, success: [201]}]
dependencies: [{name: ledger, path: /charges}]
effects: {ledger: {dependency: ledger}}
`

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDiscover(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "b", SpecFile), strings.ReplaceAll(processSpec, "%s", "bravo"))
	writeFile(t, filepath.Join(root, "b", expect.FileName), "service: bravo\nchecks:\n  IK-03: {expect: pass, why: a}\n  HS-02: {expect: fail, why: b}\n")
	writeFile(t, filepath.Join(root, "a", "deep", SpecFile), strings.ReplaceAll(processSpec, "%s", "alpha"))
	writeFile(t, filepath.Join(root, "a", "deep", expect.FileName), "target: alpha\nvariants:\n  - name: plain\n    must_fail: {HS-02: c}\n")
	writeFile(t, filepath.Join(root, "tour", SpecFile), strings.ReplaceAll(processSpec, "%s", "tour"))
	writeFile(t, filepath.Join(root, "node_modules", "x", SpecFile), "not: a spec")
	// Roots that overlap find each target once.
	systems, skipped, err := Discover([]string{root, filepath.Join(root, "b")}, catalogue)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range systems {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"alpha", "bravo"}) || len(skipped) != 1 || !strings.HasSuffix(skipped[0], "/tour") {
		t.Fatalf("found %v, skipped %v", names, skipped)
	}
	if !slices.Equal(systems[0].IDs, []string{"IK-03", "HS-02"}) {
		t.Errorf("alpha's checks %v", systems[0].IDs)
	}
	if got := systems[1].Want.Want("HS-02").Allowed; !slices.Equal(got, []reports.Status{fail}) {
		t.Errorf("bravo HS-02 allows %v", got)
	}
}

func TestDiscover_rejects(t *testing.T) {
	tests := map[string]map[string]string{
		"expectations for another name": {
			"a/" + SpecFile: strings.ReplaceAll(processSpec, "%s", "alpha"), "a/" + expect.FileName: "target: other\nvariants:\n  - name: p\n"},
		"a check missing from the verdicts": {
			"a/" + SpecFile: strings.ReplaceAll(processSpec, "%s", "alpha"), "a/" + expect.FileName: "service: alpha\nchecks:\n  IK-03: {expect: pass, why: a}\n"},
		"two targets whose directories differ in case alone": {
			"a/" + SpecFile: strings.ReplaceAll(processSpec, "%s", "Curl"), "a/" + expect.FileName: "target: Curl\nvariants:\n  - name: p\n",
			"b/" + SpecFile: strings.ReplaceAll(processSpec, "%s", "curl"), "b/" + expect.FileName: "target: curl\nvariants:\n  - name: p\n"},
		"two targets with one report directory": {
			"a/" + SpecFile: strings.ReplaceAll(processSpec, "%s", "alpha"), "a/" + expect.FileName: "target: alpha\nvariants:\n  - name: p\n",
			"b/" + SpecFile: strings.ReplaceAll(processSpec, "%s", "alpha"), "b/" + expect.FileName: "target: alpha\nvariants:\n  - name: p\n"},
		"a spec that does not load": {
			"a/" + SpecFile: "version: 1\nkind: nonsense\n", "a/" + expect.FileName: "target: alpha\nvariants:\n  - name: p\n"},
	}
	for name, files := range tests {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			for p, body := range files {
				writeFile(t, filepath.Join(root, p), body)
			}
			if _, _, err := Discover([]string{root}, catalogue); err == nil {
				t.Fatal("discovered")
			}
		})
	}
}

func TestSystem_Slug(t *testing.T) {
	for name, want := range map[string]string{
		"fastify-orders": "fastify-orders", "a b/c": "a_b_c", "..": "_..", "../x": "_.._x", "": "_", "ünï": "_n_", ".hidden": "_.hidden",
		"matrix.html": "_matrix.html", "NUL": "_NUL", "con.txt": "_con.txt", "trailing.": "_trailing.", "console": "console",
	} {
		if got := (System{Name: name}).Slug(); got != want {
			t.Errorf("Slug(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestSystem_seed(t *testing.T) {
	pinned := System{Name: "x", Want: &expect.Target{Seed: 10}}
	free := System{Name: "x", Want: &expect.Target{}}
	if pinned.seed(7, 1) != 10 || pinned.seed(7, 2) != 10 {
		t.Error("a target whose expectations name a seed is not certified with it")
	}
	if free.seed(7, 1) != TargetSeed(7, "x", 1) || free.seed(7, 1) == free.seed(7, 2) {
		t.Error("a target with no seed of its own does not draw one per run from the matrix's")
	}
}

func TestMdText(t *testing.T) {
	for in, want := range map[string]string{
		"~1 s or ~2 s":         `\~1 s or \~2 s`,
		"a | b\nc":             `a \| b c`,
		"&amp; <b> $x$ [l](u)": `&amp;amp; &lt;b&gt; \$x\$ \[l\](u)`,
		"bell\a":               "bell",
	} {
		if got := mdText(in); got != want {
			t.Errorf("mdText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSeeds(t *testing.T) {
	for _, tt := range []struct {
		in   []uint64
		want string
	}{{[]uint64{10, 10}, "10 (each run)"}, {[]uint64{1, 2, 1}, "1, 2, 1"}, {[]uint64{7}, "7"}, {nil, ""}} {
		if got := seeds(tt.in); got != tt.want {
			t.Errorf("seeds(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestRun_stopped: a matrix stopped before it certified anything still
// has a row per target, each saying it was not certified.
func TestRun_stopped(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	systems := []System{
		{Name: "a", Dir: "x/a", Spec: &targets.Target{Kind: targets.KindProcess}, Want: &expect.Target{}},
		{Name: "b", Dir: "x/b", Spec: &targets.Target{Kind: targets.KindClient}, Want: &expect.Target{}},
	}
	m, err := Run(ctx, systems, catalogue, Options{Out: t.TempDir(), Jobs: -1})
	if err == nil || m == nil {
		t.Fatalf("Run = %v, %v; want the matrix so far and an error", m, err)
	}
	if _, rows := m.Disagreements(); rows != 2 || m.Rows[0].Name != "a" || m.Rows[1].Kind != "client" {
		t.Errorf("rows %+v: want both named and not certified", m.Rows)
	}
}
