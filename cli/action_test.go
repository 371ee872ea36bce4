package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/resilcheck/resilcheck/reports"
)

// actionScript is the shell logic of action.yml, run here as the runner
// would: RC_* inputs, and GITHUB_OUTPUT and GITHUB_STEP_SUMMARY as files.
var actionScript, _ = filepath.Abs("../.github/actions/certify.sh")

// actionStep runs one step of the action's script in dir with env added,
// and returns its exit code, its output and the step's outputs and summary.
func actionStep(t *testing.T, dir, step string, env ...string) (code int, log string, outputs map[string]string, summary string) {
	t.Helper()
	out, sum := filepath.Join(dir, "output-"+step), filepath.Join(dir, "summary-"+step)
	cmd := exec.Command("bash", actionScript, step)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append(env, "GITHUB_OUTPUT="+out, "GITHUB_STEP_SUMMARY="+sum)...)
	b, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("certify.sh %s: %v", step, err)
	}
	outputs = map[string]string{}
	if raw, err := os.ReadFile(out); err == nil {
		for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				outputs[k] = v
			}
		}
	}
	s, _ := os.ReadFile(sum)
	return code, string(b), outputs, string(s)
}

// TestAction_script installs resilcheck the way the action does (built from
// this checkout), certifies the reference through the script, and checks
// the job's outcome follows the gate: the outputs, the step summary and the
// gate step's exit code.
func TestAction_script(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin", "resilcheck")
	src, _ := filepath.Abs("..")
	if code, log, _, _ := actionStep(t, tmp, "install", "RC_BIN="+bin, "RC_SOURCE="+src, "RC_VERSION=source"); code != 0 {
		t.Fatalf("install = %d\n%s", code, log)
	}
	defect := "--defect replay-mismatch --check IK-06 --seed 3 -q"
	cases := []struct {
		name    string
		env     []string
		code    string
		verdict string
		summary string
	}{
		{"pass", []string{"RC_SPEC=reference", "RC_ARGS=--check IK-03 --seed 3 -q"}, "0", "pass", "resilcheck: pass"},
		{"fail", []string{"RC_SPEC=reference", "RC_ARGS=" + defect}, "1", "fail", "IK-06"},
		{"below the gate", []string{"RC_SPEC=reference", "RC_FAIL_ON=must", "RC_ARGS=" + defect}, "0", "pass", "not gating: SHOULD is below the gate"},
		{"usage error", []string{"RC_SPEC=reference", "RC_FAIL_ON=sometimes"}, "2", "none", "no report was written"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			code, log, outs, summary := actionStep(t, dir, "run", append(c.env, "RC_BIN="+bin, "RC_REPORT_DIR=report")...)
			if code != 0 || outs["exit-code"] != c.code || outs["verdict"] != c.verdict || outs["report-dir"] != "report" {
				t.Fatalf("run = %d, outputs %v; want 0 with exit-code %s, verdict %s\n%s", code, outs, c.code, c.verdict, log)
			}
			if !strings.Contains(summary, c.summary) {
				t.Errorf("step summary lacks %q:\n%s", c.summary, summary)
			}
			if c.verdict != "none" {
				if _, err := os.Stat(filepath.Join(dir, "report", "junit.xml")); err != nil {
					t.Errorf("no junit.xml to publish: %v", err)
				}
			}
			gate, glog, _, _ := actionStep(t, dir, "gate", "RC_EXIT_CODE="+outs["exit-code"])
			if want := c.code; gate != int(want[0]-'0') {
				t.Errorf("gate = %d; want %s\n%s", gate, want, glog)
			}
		})
	}
}

// TestAction_summaryLimit: a summary.md over GitHub's 1 MiB step summary
// limit is cut at a line, with a note, and the gate still follows the exit
// code. A stand-in binary writes the report.
func TestAction_summaryLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fake := filepath.Join(dir, "resilcheck")
	script := `#!/usr/bin/env bash
set -e
while [ $# -gt 0 ]; do [ "$1" = --report-dir ] && dir=$2; shift; done
mkdir -p "$dir"
printf '{\n  "schema": "resilcheck.report/v1",\n  "verdict": "fail",\n' >"$dir/report.json"
{ echo "## resilcheck: fail"; for i in $(seq 1 30000); do echo "| fail | IK-$i | a failure line long enough to add up |"; done; } >"$dir/summary.md"
exit 1
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	code, log, outs, summary := actionStep(t, dir, "run", "RC_BIN="+fake, "RC_SPEC=target.yaml", "RC_REPORT_DIR=out")
	if code != 0 || outs["exit-code"] != "1" || outs["verdict"] != "fail" {
		t.Fatalf("run = %d, outputs %v\n%s", code, outs, log)
	}
	if n := len(summary); n > 1<<20 || n < 1<<19 {
		t.Errorf("step summary is %d bytes; want most of, and within, 1 MiB", n)
	}
	if !strings.HasPrefix(summary, "## resilcheck: fail") || !strings.Contains(summary, "Cut to fit GitHub's 1 MiB step summary") {
		t.Errorf("step summary does not keep the head and say it was cut: %q…%q", summary[:40], summary[len(summary)-120:])
	}
	if code, _, _, _ := actionStep(t, dir, "gate", "RC_EXIT_CODE=1"); code != 1 {
		t.Errorf("gate = %d; want 1", code)
	}
	if code, _, _, _ := actionStep(t, dir, "run", "RC_BIN="+fake); code != 2 {
		t.Errorf("run without a spec = %d; want 2", code)
	}
}

// TestAction_summaryLimitAgrees: the action passes summary.md through
// whole when it is within the limit WriteMarkdown writes to, so a summary
// is never cut by the script's byte count in the middle of a table or a
// fence; the two limits are one figure.
func TestAction_summaryLimitAgrees(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(actionScript)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^summary_limit=\$\(\(1024 \* 1024 - (\d+)\)\)$`).FindSubmatch(src)
	if m == nil {
		t.Fatal("certify.sh sets no summary_limit=$((1024 * 1024 - N))")
	}
	if margin, _ := strconv.Atoi(string(m[1])); reports.StepSummaryLimit != 1024*1024 || margin != reports.StepSummaryMargin {
		t.Errorf("certify.sh cuts summaries over 1 MiB - %d; WriteMarkdown keeps them within %d - %d", margin, reports.StepSummaryLimit, reports.StepSummaryMargin)
	}
}

// TestAction_installCompose: a kind compose spec needs the compose helper,
// which only the action's own checkout can build; asking for a released
// version instead is a clear usage error before anything is fetched.
// (compose/engine's TestActionInstall builds both binaries from source.)
func TestAction_installCompose(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := filepath.Join(dir, "target.yaml")
	if err := os.WriteFile(spec, []byte("version: 1\nkind: \"compose\"\ncompose:\n  files: [compose.yaml]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, log, _, _ := actionStep(t, dir, "install", "RC_BIN="+filepath.Join(dir, "bin", "resilcheck"), "RC_VERSION=v9.9.9", "RC_SPEC="+spec)
	if code != 2 || !strings.Contains(log, "resilcheck-compose helper") {
		t.Errorf("install = %d; want 2 and a word on the compose helper\n%s", code, log)
	}
}

// TestAction_installComposeInferred: whether the helper is built follows
// the spec's kind as the built binary reads it, so a compose spec in YAML's
// flow style (which a line match misses) gets its helper and a running one
// does not. A stand-in go records the builds; the resilcheck it "builds"
// reports the kind it is given.
func TestAction_installComposeInferred(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ kind, version string }{{"compose", ""}, {"running", ""}, {"compose", "v9.9.9"}} {
		kind := c.kind
		t.Run(strings.TrimSpace(kind+" "+c.version), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			bin, builds := filepath.Join(dir, "fakebin"), filepath.Join(dir, "builds.log")
			if err := os.MkdirAll(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			fakeGo := `#!/usr/bin/env bash
echo "$*" >>"` + builds + `"
[ "$1" = install ] && out=$GOBIN/resilcheck
while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
printf '#!/usr/bin/env bash\n[ "$1 $2" = "target validate" ] && echo "$3: ok (kind ` + kind + `)"\nexit 0\n' >"$out"
chmod +x "$out"
`
			spec := filepath.Join(dir, "target.yaml")
			if err := errors.Join(os.WriteFile(filepath.Join(bin, "go"), []byte(fakeGo), 0o755),
				os.WriteFile(spec, []byte("{version: 1, kind: "+kind+", compose: {files: [c.yaml]}}\n"), 0o644)); err != nil {
				t.Fatal(err)
			}
			code, log, _, _ := actionStep(t, dir, "install", "PATH="+bin+":"+os.Getenv("PATH"),
				"RC_BIN="+filepath.Join(dir, "out", "resilcheck"), "RC_SOURCE="+dir, "RC_SPEC="+spec, "RC_VERSION="+c.version)
			got, _ := os.ReadFile(builds)
			helper := strings.Contains(string(got), "resilcheck-compose")
			if c.version != "" {
				// A released resilcheck beside a helper from this checkout
				// could disagree: refused once the binary reads the kind.
				if code != 2 || helper || !strings.Contains(log, "resilcheck-compose helper") {
					t.Errorf("install %s = %d, builds:\n%s\nwant 2 and no helper\n%s", c.version, code, got, log)
				}
				return
			}
			if code != 0 || helper != (kind == "compose") {
				t.Errorf("install = %d, builds:\n%s\nwant the helper built only for kind compose\n%s", code, got, log)
			}
		})
	}
}

// TestAction_verdict: the verdict output is read from report.json however
// it is laid out, with jq or, where the runner has none, from resilcheck's
// own line; a report without one says "unknown", never an empty output.
func TestAction_verdict(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, report string
		noJq         bool
		want         string
	}{
		{"pretty", "{\n  \"schema\": \"resilcheck.report/v1\",\n  \"verdict\": \"fail\",\n  \"seed\": 1\n}\n", false, "fail"},
		{"pretty without jq", "{\n  \"schema\": \"resilcheck.report/v1\",\n  \"verdict\": \"fail\",\n  \"seed\": 1\n}\n", true, "fail"},
		{"last member without jq", "{\n  \"seed\": 1,\n  \"verdict\": \"pass\"\n}\n", true, "pass"},
		{"one line", `{"seed":1,"verdict":"inconclusive"}`, false, "inconclusive"}, // needs jq
		{"no verdict", `{"seed":1}`, false, "unknown"},
		{"not JSON", "garbage", false, "unknown"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if _, err := exec.LookPath("jq"); err != nil && c.name == "one line" {
				t.Skip("a one-line report needs jq, which GitHub's runners have")
			}
			dir := t.TempDir()
			bin := filepath.Join(dir, "fakebin")
			fake := "#!/usr/bin/env bash\nwhile [ $# -gt 0 ]; do [ \"$1\" = --report-dir ] && d=$2; shift; done\nmkdir -p \"$d\"\ncp \"" +
				filepath.Join(dir, "report.json") + "\" \"$d/report.json\"\nexit 1\n"
			files := []error{os.MkdirAll(bin, 0o755), os.WriteFile(filepath.Join(dir, "report.json"), []byte(c.report), 0o644),
				os.WriteFile(filepath.Join(dir, "resilcheck"), []byte(fake), 0o755)}
			if c.noJq { // a jq that is not there: the runner's PATH finds this one first
				files = append(files, os.WriteFile(filepath.Join(bin, "jq"), []byte("#!/bin/sh\nexit 127\n"), 0o755))
			}
			if err := errors.Join(files...); err != nil {
				t.Fatal(err)
			}
			_, log, outs, _ := actionStep(t, dir, "run", "PATH="+bin+":"+os.Getenv("PATH"),
				"RC_BIN="+filepath.Join(dir, "resilcheck"), "RC_SPEC=target.yaml", "RC_REPORT_DIR=out")
			if outs["verdict"] != c.want {
				t.Errorf("verdict output %q; want %q\n%s", outs["verdict"], c.want, log)
			}
		})
	}
}

// TestAction_oneLineInputs: a report-dir input with a newline would forge a
// line in $GITHUB_OUTPUT (exit-code=0 after the real one); it is refused
// before certify runs.
func TestAction_oneLineInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, log, outs, _ := actionStep(t, dir, "run", "RC_BIN=/bin/false", "RC_SPEC=reference", "RC_REPORT_DIR=report\nexit-code=0")
	if code != 2 || outs["exit-code"] != "" || !strings.Contains(log, "one line") {
		t.Errorf("run = %d with outputs %v; want 2, no outputs, and a word on one-line inputs\n%s", code, outs, log)
	}
}
