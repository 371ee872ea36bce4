package certify

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/reports"
)

func TestEnvironment_failedLogs(t *testing.T) {
	logs := []launch.Log{{Name: "gateway-1", Output: "listening\n"}}
	running := &launch.Running{LogsFunc: func(context.Context) ([]launch.Log, error) { return logs, nil }}
	cases := []struct {
		name    string
		running *launch.Running
		status  reports.Status
		want    []string
	}{
		{"a failed check takes the logs", running, reports.StatusFail, []string{"gateway-1"}},
		{"a pass leaves them", running, reports.StatusPass, nil},
		{"an inconclusive check leaves them", running, reports.StatusInconclusive, nil},
		{"a target without logs", &launch.Running{}, reports.StatusFail, nil},
		{"an error is said in their place", &launch.Running{LogsFunc: func(context.Context) ([]launch.Log, error) {
			return nil, errors.New("engine gone")
		}}, reports.StatusFail, []string{"resilcheck"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := &environment{running: c.running}
			rep := &reports.Report{Checks: []reports.Check{{ID: "IK-03", Status: reports.StatusPass}, {ID: "IK-07", Status: c.status}}}
			var names []string
			for _, l := range env.failedLogs(t.Context(), rep) {
				names = append(names, l.Name)
			}
			if !slices.Equal(names, c.want) {
				t.Errorf("logs %v; want %v", names, c.want)
			}
		})
	}
}

func TestResult_Write_logs(t *testing.T) {
	res := &Result{Report: &reports.Report{Schema: reports.Schema}, Journal: faults.NewJournal()}
	cause := &launch.LogsError{Err: launch.ErrUnhealthy, Logs: []launch.Log{
		{Name: "gateway-1", Output: "usage: --service-url is required\n"}, {Name: "../etc/passwd", Output: "x"},
	}}
	res.attachLogs(abortLogs(cause))
	dir := t.TempDir()
	if err := res.Write(dir, []string{"json"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "logs", "gateway-1.log"))
	if err != nil || string(b) != "usage: --service-url is required\n" {
		t.Errorf("logs/gateway-1.log = %q, %v", b, err)
	}
	var rep struct{ Logs []reports.LogFile }
	raw, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	want := []reports.LogFile{{Name: "gateway-1", File: "logs/gateway-1.log"}, {Name: "../etc/passwd", File: "logs/_etc_passwd.log"}}
	if !slices.Equal(rep.Logs, want) {
		t.Errorf("report.json logs = %v; want %v", rep.Logs, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "logs", "_etc_passwd.log")); err != nil {
		t.Errorf("a name with a path in it: %v", err)
	}
}

// TestResult_Write_staleLogs: a run writing into a report directory that
// an earlier failing run left logs in removes them, so no reader takes
// another run's container logs for this one's; other files there stay.
func TestResult_Write_staleLogs(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"gateway-1.log", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, "logs", f), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := &Result{Report: &reports.Report{Schema: reports.Schema}, Journal: faults.NewJournal()}
	if err := res.Write(dir, []string{"json"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "logs", "gateway-1.log")); !os.IsNotExist(err) {
		t.Errorf("an earlier run's log survived: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "logs", "notes.txt")); err != nil {
		t.Errorf("a file resilcheck did not write was removed: %v", err)
	}
}
