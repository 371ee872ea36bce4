package certify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/reports"
)

// LogsDir is where a target's logs go inside the report directory.
const LogsDir = "logs"

// logsTime bounds reading a target's logs after its checks.
const logsTime = 30 * time.Second

// failedLogs returns the running target's logs when a check failed: the
// target's own account of the failure belongs beside the report. Reading
// them is best effort; an error becomes a log entry saying so.
func (e *environment) failedLogs(ctx context.Context, rep *reports.Report) []launch.Log {
	failed := slices.ContainsFunc(rep.Checks, func(c reports.Check) bool { return c.Status == reports.StatusFail })
	if !failed || e.running == nil || e.running.LogsFunc == nil {
		return nil
	}
	c, cancel := context.WithTimeout(context.WithoutCancel(ctx), logsTime)
	defer cancel()
	logs, err := e.running.LogsFunc(c)
	if err != nil {
		logs = append(logs, launch.Log{Name: "resilcheck", Output: fmt.Sprintf("reading the target's logs: %v\n", err)})
	}
	return logs
}

// abortLogs returns the logs a launch failure carries, if any.
func abortLogs(err error) []launch.Log {
	if le := (*launch.LogsError)(nil); errors.As(err, &le) {
		return le.Logs
	}
	return nil
}

// attachLogs keeps logs for Write and names their files in the report.
func (r *Result) attachLogs(logs []launch.Log) {
	r.Logs = logs
	r.Report.Logs = nil
	for _, l := range logs {
		r.Report.Logs = append(r.Report.Logs, reports.LogFile{Name: l.Name, File: LogsDir + "/" + logFileName(l.Name)})
	}
}

// writeLogs writes each log to its file under dir, first removing the
// .log files an earlier run left there, which this report does not name.
func (r *Result) writeLogs(dir string) error {
	stale, _ := filepath.Glob(filepath.Join(dir, LogsDir, "*.log"))
	for _, f := range stale {
		if err := os.Remove(f); err != nil {
			return fmt.Errorf("certify: logs: %w", err)
		}
	}
	_ = os.Remove(filepath.Join(dir, LogsDir)) // only when empty: files not ours stay
	if len(r.Logs) == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Join(dir, LogsDir), 0o755); err != nil {
		return fmt.Errorf("certify: logs: %w", err)
	}
	for _, l := range r.Logs {
		path := filepath.Join(dir, LogsDir, logFileName(l.Name))
		if err := reports.WriteFileAtomic(path, func(w io.Writer) error {
			_, err := io.WriteString(w, l.Output)
			return err
		}); err != nil {
			return fmt.Errorf("certify: log of %s: %w", l.Name, err)
		}
	}
	return nil
}

// logFileName makes a part's name a safe file name.
func logFileName(name string) string {
	safe := strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' {
			return c
		}
		return '_'
	}, name)
	return strings.TrimLeft(safe, ".") + ".log"
}
