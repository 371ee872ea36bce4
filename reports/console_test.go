package reports

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestWriteConsole_Layout checks the console summary: no line wider than 80
// columns except one holding a single long word or a reproduce command,
// failures before everything else, and each check named once.
func TestWriteConsole_Layout(t *testing.T) {
	t.Parallel()
	long := fixture()
	long.Checks[2].Observed = strings.Repeat("a fairly long observation that must wrap ", 6) + "https://example.invalid/" + strings.Repeat("x", 90)
	for _, rep := range []*Report{fixture(), interruptedFixture(), long} {
		var buf bytes.Buffer
		if err := WriteConsole(&buf, rep); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for i, line := range strings.Split(out, "\n") {
			if utf8.RuneCountInString(line) <= consoleWidth || strings.Contains(line, "reproduce") {
				continue
			}
			if f := strings.Fields(line); len(f) != 1 {
				t.Errorf("line %d is %d columns wide: %q", i+1, utf8.RuneCountInString(line), line)
			}
		}
		firstFail, lastOther := strings.Index(out, "\nfail  "), strings.LastIndex(out, "\nfail  ")
		for _, other := range []string{"\ninconclusive  ", "\nnot applicable  ", "\npass  "} {
			if i := strings.Index(out, other); i >= 0 && (firstFail < 0 || i < lastOther) {
				t.Errorf("%q comes before a failure:\n%s", strings.TrimSpace(other), out)
			}
		}
		var named []string // lines naming checks: every line but the reproduce commands
		for _, line := range strings.Split(out, "\n") {
			if !strings.Contains(line, "reproduce") {
				named = append(named, line)
			}
		}
		text := strings.Join(named, "\n") + "\n"
		for _, c := range rep.Checks {
			if n := strings.Count(text, " "+c.ID+" ") + strings.Count(text, " "+c.ID+"\n"); n != 1 {
				t.Errorf("%s appears %d times as a check; want once:\n%s", c.ID, n, out)
			}
		}
	}
}
