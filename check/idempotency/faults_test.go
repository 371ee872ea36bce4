package idempotency

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
)

// TestJudgeCopies: one success body (repeated byte for byte), the
// in-progress status, and a 504 that came once the target's maximum budget
// ran out are what concurrent copies may get; a second body, a quick 504,
// a 500 or no answer is wrong.
func TestJudgeCopies(t *testing.T) {
	t.Parallel()
	h := &check.Harness{Conventions: check.Conventions{MaxBudget: 2 * time.Second}}
	ok := func(body string) check.Reply { return check.Reply{Status: 201, Body: []byte(body)} }
	status := func(s int, took time.Duration) check.Reply { return check.Reply{Status: s, Took: took} }
	for _, tc := range []struct {
		name    string
		replies []check.Reply
		bad     string // "" = none, else part of it
		tally   string
	}{
		{"one success, conflicts", []check.Reply{ok("a"), status(409, 0), status(409, 0)}, "", "1 successes, 2 conflicts"},
		{"replays", []check.Reply{ok("a"), ok("a")}, "", "2 successes, 0 conflicts"},
		{"504 at the maximum budget", []check.Reply{ok("a"), status(504, 2100*time.Millisecond)}, "", "1 successes, 0 conflicts, 1 504 at the target's maximum budget"},
		{"504 within the slack of it", []check.Reply{ok("a"), status(504, 1960*time.Millisecond)}, "", "1 successes, 0 conflicts, 1 504 at the target's maximum budget"},
		{"every copy gave up", []check.Reply{status(504, 2100*time.Millisecond), status(409, 0)}, "no copy succeeded", ""},
		{"quick 504", []check.Reply{ok("a"), status(504, 300*time.Millisecond)}, "one answered 504", ""},
		{"two bodies", []check.Reply{ok("a"), ok("b")}, "two different successful bodies", ""},
		{"a 500", []check.Reply{ok("a"), status(500, 3*time.Second)}, "one answered 500", ""},
		{"no answer", []check.Reply{ok("a"), {Err: errors.New("connection reset")}}, "one answered", ""},
	} {
		tally, bad := judgeCopies(h, tc.replies)
		switch {
		case tc.bad == "" && bad != "":
			t.Errorf("%s: bad %q; want none", tc.name, bad)
		case tc.bad != "" && !strings.Contains(bad, tc.bad):
			t.Errorf("%s: bad %q; want %q", tc.name, bad, tc.bad)
		case tc.bad == "" && tally.String() != tc.tally:
			t.Errorf("%s: tally %q; want %q", tc.name, tally, tc.tally)
		}
	}
}
