package reports

import (
	"fmt"
	"io"
	"strings"
)

// logFiles lists the saved logs' files, comma-separated.
func logFiles(r *Report) string {
	parts := make([]string, len(r.Logs))
	for i, l := range r.Logs {
		parts[i] = l.File
	}
	return strings.Join(parts, ", ")
}

// consoleLogs names the target's saved logs.
func consoleLogs(w io.Writer, r *Report) {
	if len(r.Logs) > 0 {
		wrap(w, "target logs: ", "  ", logFiles(r), consoleWidth)
	}
}

// mdLogs names the target's saved logs.
func mdLogs(w io.Writer, r *Report) {
	if len(r.Logs) == 0 {
		return
	}
	files := make([]string, len(r.Logs))
	for i, l := range r.Logs {
		files[i] = mdCode(l.File)
	}
	fmt.Fprintf(w, "Target logs, in the report directory: %s.\n\n", strings.Join(files, ", "))
}
