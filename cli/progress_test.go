package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/resilcheck/resilcheck/certify"
	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/reports"
)

func TestLiveLine(t *testing.T) {
	t.Parallel()
	counts := func(kv ...any) map[reports.Status]int {
		m := map[reports.Status]int{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(reports.Status)] = kv[i+1].(int)
		}
		return m
	}
	title := "concurrent copies of one request: one effect, the rest 409 or the replay"
	cases := []struct {
		name           string
		st             progressState
		elapsed, check time.Duration
		width          int
		want           string
	}{
		{"starting", progressState{total: 55, phase: certify.PhaseStarting, counts: counts()}, 300 * time.Millisecond, 0, 80,
			"[ 0/55] 0.3s no verdict yet · starting the target"},
		{"first check", progressState{total: 55, id: "IK-03", title: "a first request", counts: counts()}, 2 * time.Second, 150 * time.Millisecond, 80,
			"[ 0/55] 2.0s no verdict yet · IK-03 0.1s a first request"},
		{"passing so far", progressState{total: 55, done: 9, id: "IK-07", title: "t", counts: counts(reports.StatusPass, 8, reports.StatusNotApplicable, 1)}, 65 * time.Second, 4200 * time.Millisecond, 80,
			"[ 9/55] 1m05s PASS so far (1 not applicable, 8 pass) · IK-07 4.2s t"},
		{"a failure leads", progressState{total: 9, done: 3, id: "IK-07", title: "t", counts: counts(reports.StatusPass, 1, reports.StatusFail, 1, reports.StatusInconclusive, 1)}, time.Second, time.Second, 80,
			"[3/9] 1.0s FAIL so far (1 fail, 1 inconclusive, 1 pass) · IK-07 1.0s t"},
		{"inconclusive without failure", progressState{total: 9, done: 2, counts: counts(reports.StatusPass, 1, reports.StatusInconclusive, 1)}, time.Second, 0, 80,
			"[2/9] 1.0s INCONCLUSIVE so far (1 inconclusive, 1 pass)"},
		{"cut to the width", progressState{total: 55, done: 12, id: "IK-07", title: title, counts: counts(reports.StatusPass, 12)}, time.Second, time.Second, 60,
			"[12/55] 1.0s PASS so far (12 pass) · IK-07 1.0s concurrent …"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			line := liveLine(c.st, c.elapsed, c.check, c.width)
			if got := ansi.Strip(line); got != c.want {
				t.Errorf("liveLine = %q\n            want %q", got, c.want)
			}
			if w := ansi.StringWidth(line); w > max(c.width, 20) {
				t.Errorf("liveLine is %d cells wide; want at most %d", w, c.width)
			}
		})
	}
}

func TestPlainLine(t *testing.T) {
	t.Parallel()
	chk := check.Check{ID: "IK-07", Title: "concurrent copies"}
	cases := []struct {
		ev   certify.Event
		want string
	}{
		{certify.Event{Total: 55, Done: 3, Check: chk, Finished: true, Result: reports.Check{Status: reports.StatusFail, Duration: reports.Duration(1234567 * time.Microsecond)}},
			"[ 3/55] fail           IK-07   concurrent copies (1.235s)"},
		{certify.Event{Total: 5, Done: 5, Check: chk, Finished: true, Result: reports.Check{Status: reports.StatusNotApplicable}},
			"[5/5] not applicable IK-07   concurrent copies (0s)"},
	}
	for _, c := range cases {
		if got := ansi.Strip(plainLine(c.ev)); got != c.want {
			t.Errorf("plainLine = %q\n       want %q", got, c.want)
		}
	}
	if got := plainPhase(certify.Event{Phase: certify.PhaseHealth, Total: 12}); got != "[ 0/12] "+certify.PhaseHealth {
		t.Errorf("plainPhase = %q", got)
	}
}

// TestProgressView_notATerminal: output that is not a terminal gets one plain
// line per phase and per finished check, no escape codes, no live line.
func TestProgressView_notATerminal(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	v := newProgressView(&buf, true)
	chk := check.Check{ID: "RB-01", Title: "retries capped"}
	v.Event(certify.Event{Phase: certify.PhaseStarting, Total: 2})
	v.Event(certify.Event{Total: 2, Check: chk})
	v.Event(certify.Event{Total: 2, Done: 1, Check: chk, Finished: true, Result: reports.Check{Status: reports.StatusPass}})
	v.Event(certify.Event{Total: 2, Check: chk})
	v.Event(certify.Event{Total: 2, Done: 2, Check: chk, Finished: true, Result: reports.Check{Status: reports.StatusFail}})
	v.Close()
	want := "[0/2] starting the target\n[1/2] pass           RB-01   retries capped (0s)\n[2/2] fail           RB-01   retries capped (0s)\n"
	if buf.String() != want {
		t.Errorf("piped progress:\n%q\nwant\n%q", buf.String(), want)
	}
	if v.live || strings.ContainsAny(buf.String(), "\x1b\r") {
		t.Errorf("piped progress is live or has escape codes: %q", buf.String())
	}
}

func TestClock(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{0: "0.0s", 4249 * time.Millisecond: "4.2s", 59900 * time.Millisecond: "59.9s", 61 * time.Second: "1m01s", 754 * time.Second: "12m34s"} {
		if got := clock(d); got != want {
			t.Errorf("clock(%s) = %q; want %q", d, got, want)
		}
	}
}

// TestProgressView_live drives the live line as a terminal sees it: redrawn
// in place, a failure printed on a line of its own above it, and nothing
// drawn once Close hands the terminal to the console.
func TestProgressView_live(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	v := newProgressView(&buf, true)
	v.out = &buf // as on a terminal: colorprofile keeps the control sequences
	at := time.Unix(0, 0)
	v.start, v.now = at, func() time.Time { return at } // clocks a busy machine cannot move
	v.goLive(func() int { return 60 })
	chk := check.Check{ID: "RB-01", Title: "retries capped"}
	v.Event(certify.Event{Phase: certify.PhaseStarting, Total: 2})
	v.Event(certify.Event{Total: 2, Check: chk})
	v.Event(certify.Event{Total: 2, Done: 1, Check: chk, Finished: true, Result: reports.Check{Status: reports.StatusPass}})
	v.Event(certify.Event{Total: 2, Check: chk})
	v.Event(certify.Event{Total: 2, Done: 2, Check: chk, Finished: true, Result: reports.Check{Status: reports.StatusFail}})
	v.Close()
	v.Stopping() // a signal after the run: the console owns the terminal
	out := ansi.Strip(buf.String())
	for _, want := range []string{
		"\r[0/2] 0.0s no verdict yet · starting the target",
		"\r[0/2] 0.0s no verdict yet · RB-01 0.0s retries capped",
		"\r[1/2] 0.0s PASS so far (1 pass)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("live output lacks %q:\n%q", want, out)
		}
	}
	if got := strings.Count(out, "\n"); got != 1 || !strings.Contains(out, "\r[2/2] fail           RB-01   retries capped (0s)\n") {
		t.Errorf("live output has %d lines, want only the failure's: %q", got, out)
	}
	if !strings.HasSuffix(buf.String(), "\r"+ansi.EraseLineRight) {
		t.Errorf("the live line is not erased at the end: %q", buf.String())
	}
}

// TestProgressView_sideBySide: with copies of the target running checks
// side by side, the live line shows a check still running, never a blank
// one while others run.
func TestProgressView_sideBySide(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	v := newProgressView(&buf, true)
	a, b := check.Check{ID: "RL-07p", Title: "rate limits"}, check.Check{ID: "HS-08p", Title: "retry-after"}
	v.Event(certify.Event{Total: 2, Check: a})
	v.Event(certify.Event{Total: 2, Check: b})
	if v.st.id != "HS-08p" || !strings.Contains(v.st.title, "and 1 beside it") {
		t.Errorf("two running: the line shows %s %q", v.st.id, v.st.title)
	}
	v.Event(certify.Event{Total: 2, Done: 1, Check: b, Finished: true, Result: reports.Check{Status: reports.StatusPass}})
	if v.st.id != "RL-07p" || v.st.title != "rate limits" {
		t.Errorf("one still running: the line shows %s %q; want RL-07p", v.st.id, v.st.title)
	}
	v.Event(certify.Event{Total: 2, Done: 2, Check: a, Finished: true, Result: reports.Check{Status: reports.StatusPass}})
	if v.st.id != "" {
		t.Errorf("none running: the line shows %s", v.st.id)
	}
}
