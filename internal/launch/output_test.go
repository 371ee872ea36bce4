package launch

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// goTrace is what a Go program writes when it panics with n goroutines'
// stacks (GOTRACEBACK=all): the panic line, then four lines per goroutine.
func goTrace(n int) string {
	var b strings.Builder
	b.WriteString("panic: boom: ledger unreachable\n\n")
	for i := range n {
		fmt.Fprintf(&b, "goroutine %d [select (no cases)]:\nmain.worker()\n\t/src/main.go:%d +0x1d\n\n", i+1, 40+i)
	}
	return b.String()
}

func TestOutputLog_Tail(t *testing.T) {
	t.Parallel()
	many := strings.Repeat("listening on :8080\n", 1000) // past the 16 KiB kept: the panic line is dropped from the buffer
	cases := []struct {
		name   string
		writes []string
		first  string // the first line Tail returns, without its tab
		last   string // the last line
		lines  int
	}{
		{"nothing", nil, "", "", 0},
		{"one line", []string{"boom: no config at /etc/pay.toml\n"}, "boom: no config at /etc/pay.toml", "boom: no config at /etc/pay.toml", 1},
		{"a short panic", []string{"starting\n", goTrace(1)}, "starting", "\t/src/main.go:40 +0x1d", 6},
		{"a long panic keeps its panic line", []string{"starting\n", goTrace(30)}, "panic: boom: ledger unreachable", "\t/src/main.go:69 +0x1d", 22},
		{"a panic line pushed out of the buffer", []string{"starting\n", "panic: boom: ledger unreachable\n", many, goTrace(30)[len("panic: boom: ledger unreachable\n"):]},
			"panic: boom: ledger unreachable", "\t/src/main.go:69 +0x1d", 22},
		{"written a byte at a time", strings.Split("starting\n"+goTrace(30), ""), "panic: boom: ledger unreachable", "\t/src/main.go:69 +0x1d", 22},
		{"no panic", []string{strings.Repeat("line\n", 50) + "last\n"}, "line", "last", 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := &outputLog{}
			for _, w := range c.writes {
				_, _ = o.Write([]byte(w))
			}
			tail := o.Tail()
			if c.lines == 0 {
				if tail != "" {
					t.Errorf("Tail() = %q; want empty", tail)
				}
				return
			}
			lines := strings.Split(tail, "\n")
			for i, l := range lines {
				if !strings.HasPrefix(l, "\t") {
					t.Fatalf("line %d %q is not indented", i, l)
				}
				lines[i] = l[1:]
			}
			if len(lines) != c.lines || lines[0] != c.first || lines[len(lines)-1] != c.last {
				t.Errorf("Tail() = %d lines, first %q, last %q; want %d, %q, %q\n%s", len(lines), lines[0], lines[len(lines)-1], c.lines, c.first, c.last, tail)
			}
			if c.first == "panic: boom: ledger unreachable" && c.lines == 22 && lines[1] != "…" {
				t.Errorf("line 2 %q; want … after a panic line brought forward", lines[1])
			}
		})
	}
}

// TestProcessLauncher_Launch_panics: a Go target that panics at startup with
// a long stack trace is reported with the panic line and the trace's last
// lines, not the frames alone.
func TestProcessLauncher_Launch_panics(t *testing.T) {
	t.Parallel()
	_, _, err := launch(t, processTarget(t, "panic", ""), nil)
	var ee *ExitedError
	if !errors.As(err, &ee) || !errors.Is(err, ErrUnhealthy) {
		t.Fatalf("Launch() = %v; want an *ExitedError matching ErrUnhealthy", err)
	}
	lines := strings.Split(ee.Output, "\n")
	if len(lines) < 10 || len(lines) > tailMaxLines+2 || lines[0] != "\tpanic: boom: ledger unreachable" || !strings.Contains(ee.Output, "goroutine ") {
		t.Errorf("output (%d lines):\n%s\nwant the panic line first, then the trace's last lines, at most %d", len(lines), ee.Output, tailMaxLines+2)
	}
}
