package clients_test

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/clients"
)

// needs skips the test when a program is not installed.
func needs(t *testing.T, prog string) {
	t.Helper()
	if _, err := exec.LookPath(prog); err != nil {
		t.Skipf("%s is not installed", prog)
	}
}

// TestCurl certifies curl --retry (7.88.1, Debian 12) as a command: 3
// retries, a 10 s retry budget, 2 s per attempt, --fail so an error
// status is a failed exit.
func TestCurl(t *testing.T) {
	t.Parallel()
	needs(t, "curl")
	certifyAgainst(t, "curl", clients.Command{Argv: []string{
		"curl", "-sS", "--fail", "--retry", "3", "--retry-max-time", "10", "--max-time", "2",
		"-X", "{{.Method}}", "{{if .Key}}-H{{end}}", "{{if .Key}}{{.KeyHeader}}: {{.Key}}{{end}}",
		"{{if .Body}}--data{{end}}", "{{.Body}}", "-o", "/dev/null", "{{.URL}}",
	}}, clients.Policy{MaxAttempts: 4, Deadline: 12 * time.Second, AttemptTimeout: 2 * time.Second})
}

// TestWget certifies GNU Wget 1.21.3's retries as a command: 4 tries,
// 503 and 429 retried, 2 s read timeout. Wget has no overall deadline.
func TestWget(t *testing.T) {
	t.Parallel()
	needs(t, "wget")
	certifyAgainst(t, "wget", clients.Command{Argv: []string{
		"wget", "-q", "-O", "/dev/null", "--tries=4", "--retry-on-http-error=503,429", "--read-timeout=2",
		"--method={{.Method}}", "{{if .Body}}--body-data={{.Body}}{{end}}",
		"{{if .Key}}--header={{.KeyHeader}}: {{.Key}}{{end}}", "{{.URL}}",
	}}, clients.Policy{MaxAttempts: 4, AttemptTimeout: 2 * time.Second})
}

// TestURLLib3 certifies Python urllib3's Retry (urllib3/client.py): 3
// retries, backoff factor 0.5, 429 and 503 retried, the default methods
// (not POST), 2 s per attempt. urllib3 has no overall deadline.
func TestURLLib3(t *testing.T) {
	t.Parallel()
	needs(t, "python3")
	// The interpreter itself, not a version manager's shim: a dozen
	// concurrent pyenv shims take seconds each to start.
	python, err := exec.Command("python3", "-c", "import sys, urllib3; print(sys.executable)").Output()
	if err != nil {
		t.Skip("python3 has no urllib3")
	}
	certifyAgainst(t, "urllib3", clients.Command{
		Argv: []string{strings.TrimSpace(string(python)), "urllib3/client.py", "{{.Method}}", "{{.URL}}", "header={{.KeyHeader}}", "key={{.Key}}", "body={{.Body}}"},
		// asctime carries no zone; email.utils.mktime_tz reads a date without
		// one as local time, so the verdict holds for a client in UTC.
		Env: map[string]string{"TZ": "UTC"},
	}, clients.Policy{MaxAttempts: 4, AttemptTimeout: 2 * time.Second,
		Methods: []string{"GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"}})
}
