package clients

import (
	"strings"
	"testing"
	"time"
)

func TestScenarios_builtin(t *testing.T) {
	ss := Scenarios()
	if len(ss) < 10 {
		t.Fatalf("%d built-in scenarios", len(ss))
	}
	for _, s := range ss {
		if s.Title == "" {
			t.Errorf("%s: no title", s.ID)
		}
	}
}

func TestParseScenarios_rejects(t *testing.T) {
	cases := map[string]string{
		"version":        "version: 2\nscenarios: []\n",
		"unknown key":    "version: 1\nscenarios:\n  - {id: a, expect: success, colour: red}\n",
		"bad id":         "version: 1\nscenarios:\n  - {id: a/b, expect: success}\n",
		"duplicate":      "version: 1\nscenarios:\n  - {id: a, expect: success}\n  - {id: a, expect: success}\n",
		"expect":         "version: 1\nscenarios:\n  - {id: a, expect: maybe}\n",
		"fault":          "version: 1\nscenarios:\n  - {id: a, expect: success, attempts: [{fault: explode}]}\n",
		"reset status":   "version: 1\nscenarios:\n  - {id: a, expect: success, attempts: [{fault: reset, status: 503}]}\n",
		"form alone":     "version: 1\nscenarios:\n  - {id: a, expect: success, attempts: [{status: 503, form: rfc850}]}\n",
		"fraction":       "version: 1\nscenarios:\n  - {id: a, expect: success, attempts: [{status: 503, retry_after: 1500ms}]}\n",
		"success on 503": "version: 1\nscenarios:\n  - {id: a, expect: success, then: {status: 503}}\n",
	}
	for name, raw := range cases {
		if _, err := ParseScenarios([]byte(raw)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestStep_retryAfterValue renders each form and reads it back: a date
// names a whole second at least half a second past now+RetryAfter.
func TestStep_retryAfterValue(t *testing.T) {
	now := time.Date(2026, 11, 23, 22, 48, 1, 700e6, time.UTC)
	for _, form := range forms {
		s := Step{Status: 503, RetryAfter: time.Second, Form: form}
		v := s.retryAfterValue(now)
		due, got, ok := retryAfterDue(v, now)
		if !ok || got != form {
			t.Errorf("%s: %q read back as %q, %v", form, v, got, ok)
			continue
		}
		want := time.Date(2026, 11, 23, 22, 48, 4, 0, time.UTC) // 01.7 + 1 s + 1.5 s, truncated
		if form == FormSeconds {
			want = now.Add(time.Second)
		}
		if !due.Equal(want) {
			t.Errorf("%s: %q is due %s, want %s", form, v, due, want)
		}
		if form != FormSeconds && !strings.Contains(v, "2026") && !strings.Contains(v, "-26 ") {
			t.Errorf("%s: %q has no year", form, v)
		}
	}
}
