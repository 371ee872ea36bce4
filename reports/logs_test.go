package reports

import (
	"bytes"
	"strings"
	"testing"
)

func TestWriters_logs(t *testing.T) {
	r := &Report{Schema: Schema, Verdict: VerdictFail, Target: Target{Name: "stack", Kind: "compose"},
		Logs: []LogFile{{Name: "gateway-1", File: "logs/gateway-1.log"}, {Name: "service-1", File: "logs/service-1.log"}}}
	for _, c := range []struct {
		format string
		write  Writer
		want   string
	}{
		{"console", WriteConsole, "target logs: logs/gateway-1.log, logs/service-1.log"},
		{"md", WriteMarkdown, "Target logs, in the report directory: `logs/gateway-1.log`, `logs/service-1.log`."},
		{"html", WriteHTML, `<a href="logs/service-1.log">logs/service-1.log</a>`},
	} {
		var b bytes.Buffer
		if err := c.write(&b, r); err != nil {
			t.Fatalf("%s: %v", c.format, err)
		}
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("%s lacks %q", c.format, c.want)
		}
		// A report without logs says nothing of them.
		b.Reset()
		saved := r.Logs
		r.Logs = nil
		_ = c.write(&b, r)
		r.Logs = saved
		if strings.Contains(strings.ToLower(b.String()), "target logs") {
			t.Errorf("%s mentions logs without any", c.format)
		}
	}
}
