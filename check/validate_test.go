package check

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/reports"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	run := func(context.Context, *Case) Result { return Pass("", "") }
	good := Check{ID: "CX-01", Suite: "mine", Title: "t", Source: "RFC 9110 §15", Level: reports.LevelShould, Run: run}
	with := func(f func(*Check)) Check { c := good; f(&c); return c }
	for _, c := range []struct {
		name   string
		suites []Suite
		want   string
	}{
		{"good", []Suite{{Name: "mine", Checks: []Check{good}}}, ""},
		{"no name", []Suite{{Checks: []Check{good}}}, "a suite has no name"},
		{"twice", []Suite{{Name: "mine"}, {Name: "mine"}}, "listed twice"},
		{"shared ID", []Suite{{Name: "mine", Checks: []Check{good}}, {Name: "other", Checks: []Check{with(func(c *Check) { c.Suite = "other" })}}}, "is in suites mine and other"},
		{"no Run", []Suite{{Name: "mine", Checks: []Check{with(func(c *Check) { c.Run = nil })}}}, "lacks an ID, title, source or Run"},
		{"wrong suite", []Suite{{Name: "mine", Checks: []Check{with(func(c *Check) { c.Suite = "theirs" })}}}, `says suite "theirs"`},
		{"bad level", []Suite{{Name: "mine", Checks: []Check{with(func(c *Check) { c.Level = "MAYBE" })}}}, "not one of"},
		{"bad need", []Suite{{Name: "mine", Checks: []Check{with(func(c *Check) { c.Needs = []Need{{Name: "x"}} })}}}, "need without"},
		{"negative takes", []Suite{{Name: "mine", Checks: []Check{with(func(c *Check) { c.Takes = -time.Second })}}}, "negative time"},
		{"explores wide", []Suite{{Name: "mine", Checks: []Check{with(func(c *Check) { c.Explores, c.RunWide = true, true })}}}, "both explores"},
	} {
		err := Validate(c.suites)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: Validate = %v; want %q", c.name, err, c.want)
		}
	}
}
