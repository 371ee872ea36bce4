package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/reports"
)

func runCLI(ctx context.Context, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(ctx, args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestCertify_usage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("version: 1\nkind: running\nservice:\n  url: not a url\n  helth: /x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	running := filepath.Join(dir, "running.yaml")
	if err := os.WriteFile(running, []byte("kind: running\nservice: {url: 'http://127.0.0.1:1'}\noperations: [{name: pay, path: /pay}]\neffects: {probe: {url: '/count?key={{.Key}}', count: '$.count'}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"neither target", []string{"certify"}, "exactly one of --reference or -f"},
		{"both targets", []string{"certify", "--reference", "-f", bad}, "exactly one"},
		{"unknown defect", []string{"certify", "--reference", "--defect", "typo"}, "--reference: reference.defects[0]: unknown defect typo; valid defects"},
		{"bad store", []string{"certify", "--reference", "--store", "mysql://db"}, "reference.store: expected sqlite"},
		{"defect with a spec", []string{"certify", "-f", bad, "--defect", "no-jitter"}, "--defect, --store and --face apply to --reference"},
		{"unknown suite", []string{"certify", "--reference", "--suite", "nope"}, "unknown suite"},
		{"unknown check", []string{"certify", "--reference", "--check", "XX-99"}, "no check"},
		{"unknown format", []string{"certify", "--reference", "--format", "pdf"}, "pdf"},
		{"invalid spec", []string{"certify", "-f", bad}, "bad.yaml:5:3"},
		{"missing spec", []string{"certify", "-f", filepath.Join(dir, "absent.yaml")}, "absent.yaml"},
		{"negative explore", []string{"certify", "--reference", "--explore", "-1s"}, "cannot be negative"},
		{"negative explore-cases", []string{"certify", "--reference", "--explore-cases", "-3"}, "cannot be negative"},
		{"serial and concurrency", []string{"certify", "--reference", "--serial", "--concurrency", "2"}, "not both"},
		{"negative concurrency", []string{"certify", "--reference", "--concurrency", "-2"}, "want 0 (the spec's concurrency) or more"},
		{"copies of a running service", []string{"certify", "-f", running, "--concurrency", "2"}, "kind running is one copy"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			code, out, errs := runCLI(context.Background(), append(c.args, "--report-dir", t.TempDir())...)
			if code != exitUsage || !strings.Contains(out+errs, c.want) {
				t.Errorf("certify %q = %d, output %q; want exit 2 mentioning %q", c.args, code, out+errs, c.want)
			}
		})
	}
}

// TestCertify_unreachable certifies a running target on a port nothing
// listens on: inconclusive (exit 3), saying what was tried.
func TestCertify_unreachable(t *testing.T) {
	t.Parallel()
	addrs := freeAddrs(t, 2)
	addr, depAddr := addrs[0], addrs[1]
	dir := t.TempDir()
	spec := filepath.Join(dir, "target.yaml")
	body := "version: 1\nkind: running\nservice:\n  url: http://" + addr + "\n  startup_timeout: 500ms\n" +
		"operations: [{name: pay, path: /v1/payments, body: '{\"amount\": {{.Amount}}}'}]\n" +
		"dependencies: [{name: processor, listen: " + depAddr + "}]\neffects: {ledger: {dependency: processor}}\n"
	if err := os.WriteFile(spec, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(context.Background(), "certify", "-f", spec, "--report-dir", filepath.Join(dir, "report"))
	if code != exitInconclusive || !strings.Contains(errs, addr) {
		t.Errorf("certify unreachable = %d, stdout %q, stderr %q; want exit 3 naming %s", code, out, errs, addr)
	}
}

// TestCertify_interrupted cancels a run mid-way, as Ctrl-C does: the partial
// report is written, marked interrupted, and the exit code is 4.
func TestCertify_interrupted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(700*time.Millisecond, cancel)
	code, out, errs := runCLI(ctx, "certify", "--reference", "--report-dir", dir, "--seed", "5", "-q")
	if code != exitInterrupted {
		t.Fatalf("interrupted certify = %d; want 4\nstdout %s\nstderr %s", code, out, errs)
	}
	f, err := os.Open(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatalf("partial report: %v", err)
	}
	defer f.Close()
	rep, err := reports.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != reports.VerdictInterrupted || rep.Interrupted == "" {
		t.Errorf("report verdict %q, interrupted %q; want interrupted with a reason", rep.Verdict, rep.Interrupted)
	}
	if _, err := os.Stat(filepath.Join(dir, "journal.jsonl")); err != nil {
		t.Errorf("journal not kept: %v", err)
	}
}

// TestCertify_reference runs the main job on one suite and checks the report
// directory and the verdict on stdout.
func TestCertify_reference(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, out, errs := runCLI(context.Background(), "certify", "--reference", "--suite", "idempotency", "--report-dir", dir, "--seed", "11", "-q")
	if code != exitPass || !strings.Contains(out, "verdict PASS") {
		t.Fatalf("certify --reference = %d\nstdout %s\nstderr %s", code, out, errs)
	}
	for _, f := range []string{"report.json", "junit.xml", "summary.md", "report.html", "journal.jsonl"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	var rep map[string]any
	b, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	if err := json.Unmarshal(b, &rep); err != nil || rep["seed"] != float64(11) {
		t.Errorf("report.json seed = %v (%v); want 11", rep["seed"], err)
	}
	// The report names the reference from its own spec, with its parts.
	tg, _ := rep["target"].(map[string]any)
	urls, _ := tg["urls"].(map[string]any)
	if tg["name"] != "reference payments stack" || tg["kind"] != "reference" || urls["gateway"] == nil || urls["dependency:processor"] == nil {
		t.Errorf("report.json target = %v; want the reference payments stack with its URLs", tg)
	}
}

// TestCertify_referenceGRPC certifies the reference's gRPC face from the
// command line, as the README says: the report's target is the service,
// reached over h2c without the gateway, so no hop proxy stands before it
// (the HTTP face's gateway → service hop would).
func TestCertify_referenceGRPC(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, out, errs := runCLI(context.Background(), "certify", "--reference", "--face", "grpc", "--suite", "idempotency", "--report-dir", dir, "--seed", "12", "-q")
	if code != exitPass || !strings.Contains(out, "verdict PASS") {
		t.Fatalf("certify --reference --face grpc = %d\nstdout %s\nstderr %s", code, out, errs)
	}
	var rep struct {
		Target struct {
			URLs map[string]string `json:"urls"`
		} `json:"target"`
		Reproduce string `json:"reproduce"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	_, hop := rep.Target.URLs["hop:service"]
	if hop || rep.Target.URLs["service"] == "" || !strings.Contains(rep.Reproduce, "--face grpc") {
		t.Errorf("report target %+v, reproduce %q; want the service certified alone, replayed with --face grpc", rep.Target, rep.Reproduce)
	}
}

// freeAddrs returns n distinct loopback addresses nothing listens on,
// below the ephemeral range (launch.FreeAddrs): a port-0 listener of the
// run once took a port handed out here before its owner bound it.
func freeAddrs(t *testing.T, n int) []string {
	t.Helper()
	out, err := launch.FreeAddrs(n)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
