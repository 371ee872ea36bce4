package cli

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func runLoadCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code := run(ctx, args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestRun_Load(t *testing.T) {
	t.Parallel()
	var keyed atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Idempotency-Key") != "" && r.Header.Get("X-Tenant-ID") == "t1" && r.Header.Get("X-Extra") == "1" {
			keyed.Add(1)
		}
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(200 * time.Millisecond):
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer failing.Close()
	dir := t.TempDir()
	out := func(name string) string { return filepath.Join(dir, name) }

	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{name: "constant with output", code: exitPass, stdout: "Rate          [requested, achieved]        20.00",
			args: []string{"load", "--url", srv.URL, "--method", "post", "--body", `{"n":{{.Seq}}}`, "--header", "X-Extra: 1",
				"--tenant", "t1", "--rate", "20", "--duration", "500ms", "--output", out("a.gob"), "--seed", "3"}},
		{name: "linear json", code: exitPass, stdout: "201:",
			args: []string{"load", "--url", srv.URL, "--pace", "linear", "--rate", "10", "--slope", "20", "--duration", "500ms",
				"--output", out("b.json"), "--encoding", "json"}},
		{name: "sine csv", code: exitPass, stdout: "Success",
			args: []string{"load", "--url", srv.URL, "--pace", "sine", "--rate", "20", "--amp", "10", "--period", "500ms",
				"--duration", "500ms", "--output", out("c.csv"), "--encoding", "csv"}},
		{name: "shortfall is inconclusive", code: exitInconclusive, stdout: "SHORTFALL", stderr: "rate shortfall",
			args: []string{"load", "--url", slow.URL, "--rate", "40", "--duration", "500ms", "--max-workers", "1"}},
		{name: "every request failed", code: exitFail, stdout: "success>=0.99", stderr: "threshold missed: success>=0.99 (observed 0.00%)",
			args: []string{"load", "--url", failing.URL, "--rate", "20", "--duration", "300ms"}},
		{name: "latency threshold missed", code: exitFail, stdout: "MISSED", stderr: "p99<1ms",
			args: []string{"load", "--url", slow.URL, "--rate", "10", "--duration", "300ms", "--threshold", "p99<1ms"}},
		{name: "success threshold lowered", code: exitPass, stdout: "success>=0",
			args: []string{"load", "--url", failing.URL, "--rate", "20", "--duration", "300ms", "--threshold", "success>=0"}},
		{name: "bad threshold", code: exitUsage, stderr: "--threshold", args: []string{"load", "--url", srv.URL, "--threshold", "p99=1s"}},
		{name: "unknown template field", code: exitUsage, stderr: "no field Foo", args: []string{"load", "--url", srv.URL, "--body", "{{.Foo}}"}},
		{name: "missing url", code: exitUsage, stderr: "--url is required", args: []string{"load"}},
		{name: "relative url", code: exitUsage, stderr: "absolute", args: []string{"load", "--url", "/x"}},
		{name: "bad header", code: exitUsage, stderr: "Name:value", args: []string{"load", "--url", srv.URL, "--header", "nocolon"}},
		{name: "bad pace", code: exitUsage, stderr: "pacing", args: []string{"load", "--url", srv.URL, "--pace", "square"}},
		{name: "sine without amp", code: exitUsage, stderr: "sine", args: []string{"load", "--url", srv.URL, "--pace", "sine", "--period", "1s"}},
		{name: "bad encoding", code: exitUsage, stderr: "--encoding", args: []string{"load", "--url", srv.URL, "--encoding", "xml"}},
		{name: "zero rate", code: exitUsage, stderr: "rate", args: []string{"load", "--url", srv.URL, "--rate", "0"}},
		{name: "missing body file", code: exitUsage, stderr: "--body", args: []string{"load", "--url", srv.URL, "--body", "@" + out("nope")}},
		{name: "bad duration", code: exitUsage, args: []string{"load", "--url", srv.URL, "--duration", "soon"}},
	}
	for _, c := range cases {
		code, stdout, stderr := runLoadCLI(t, c.args...)
		if code != c.code || !strings.Contains(stdout, c.stdout) || !strings.Contains(stderr, c.stderr) {
			t.Errorf("%s: code %d (want %d)\nstdout: %s\nstderr: %s", c.name, code, c.code, stdout, stderr)
		}
	}
	if keyed.Load() < 9 {
		t.Errorf("the target saw %d requests with a key, the tenant and the extra header; want about 10", keyed.Load())
	}

	// report merge combines the three files, whatever their encodings.
	code, stdout, stderr := runLoadCLI(t, "report", "merge", out("a.gob"), out("b.json"), out("c.csv"), "--output", out("all.csv"), "--encoding", "csv")
	if code != exitPass || !strings.Contains(stdout, "merged 3 files") || !strings.Contains(stdout, "Requests") {
		t.Fatalf("merge: code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if b, err := os.ReadFile(out("all.csv")); err != nil || bytes.Count(b, []byte("\n")) < 25 {
		t.Fatalf("merged output: %d lines, %v", bytes.Count(b, []byte("\n")), err)
	}
	if err := os.WriteFile(out("junk"), []byte("\x00\x01not results"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"report", "merge"},
		{"report", "merge", out("missing.gob")},
		{"report", "merge", out("junk")},
		{"report", "merge", out("a.gob"), "--encoding", "xml"},
	} {
		if code, _, stderr := runLoadCLI(t, args...); code != exitUsage {
			t.Errorf("%v: code %d, want %d; stderr %s", args, code, exitUsage, stderr)
		}
	}
}
