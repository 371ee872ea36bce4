package reports

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jstemmer/go-junit-report/v2/junit"
)

var _ Writer = WriteJUnit

// WriteJUnit writes JUnit XML: one testsuite per suite, one testcase per
// check named "ID title" with the suite as classname. A failure becomes
// <failure>, not applicable <skipped>, inconclusive <error>; an interrupted run adds
// an erroring testcase "run interrupted", and a run aborted before its checks
// one named "run aborted" with the target's last output, so every CI shows it.
func WriteJUnit(w io.Writer, r *Report) error {
	r = escaped(r, escapeControls)
	suites := junit.Testsuites{Name: "resilcheck", Time: seconds(r.Duration)}
	index := map[string]int{}
	var built []junit.Testsuite
	suiteFor := func(name string) *junit.Testsuite {
		i, ok := index[name]
		if !ok {
			i = len(built)
			index[name] = i
			built = append(built, newJUnitSuite(name, i, r))
		}
		return &built[i]
	}
	for _, s := range r.Suites {
		suiteFor(s.Name)
	}
	took := map[string]Duration{}
	for _, c := range r.Checks {
		suiteFor(c.Suite).AddTestcase(junitCase(c, r.Gate))
		took[c.Suite] += c.Duration
	}
	if r.Aborted != "" {
		suiteFor("resilcheck").AddTestcase(junit.Testcase{
			Name: "run aborted", Classname: "resilcheck", Time: seconds(0),
			Error: &junit.Result{Message: oneLine(r.Aborted), Type: "aborted", Data: xmlSafe(abortedDetails(r))},
		})
	}
	if r.Interrupted != "" {
		suiteFor("resilcheck").AddTestcase(junit.Testcase{
			Name: "run interrupted", Classname: "resilcheck", Time: seconds(0),
			Error: &junit.Result{Message: oneLine(r.Interrupted), Type: "interrupted",
				Data: xmlSafe("The run stopped early; this is a partial report.\n" + r.Interrupted)},
		})
	}
	for _, s := range built {
		s.Time = seconds(took[s.Name])
		suites.AddSuite(s) // AddSuite and AddTestcase keep the counts
	}
	return suites.WriteXML(w)
}

// abortedDetails is the body of the "run aborted" testcase: why no check
// ran, then the target's last output.
func abortedDetails(r *Report) string {
	out := "No check ran: " + r.Aborted + "\n"
	if r.TargetOutput != "" {
		out += "\nThe target's last output:\n" + strings.Join(outputLines(r.TargetOutput), "\n") + "\n"
	}
	return out
}

func newJUnitSuite(name string, id int, r *Report) junit.Testsuite {
	s := junit.Testsuite{Name: name, ID: id}
	s.AddProperty("verdict", string(r.Verdict))
	s.AddProperty("seed", fmt.Sprint(r.Seed))
	s.AddProperty("target", r.Target.Name)
	if r.Reproduce != "" {
		s.AddProperty("reproduce", r.Reproduce)
	}
	if r.TLS != nil {
		if r.TLS.Authority != "" {
			s.AddProperty("tls.authority", r.TLS.Authority)
		}
		for _, h := range r.TLS.Hops {
			s.AddProperty("tls.hop", h.Describe())
		}
	}
	return s
}

// junitCase renders one check; a failure the gate does not count keeps its
// <failure>, its message starting with why (waived, below the gate), so a
// JUnit view shows it without hiding it.
func junitCase(c Check, g *Gate) junit.Testcase {
	tc := junit.Testcase{Name: c.ID + " " + oneLine(c.Title), Classname: c.Suite, Time: seconds(c.Duration)}
	switch c.Status {
	case StatusFail:
		msg := oneLine(c.Observed)
		if msg == "" {
			msg = oneLine(c.Title)
		}
		if note := gateNote(c, g); note != "" {
			msg = "[" + note + "] " + msg
		}
		tc.Failure = &junit.Result{Message: msg, Type: string(c.Level), Data: xmlSafe(checkDetails(c))}
	case StatusNotApplicable:
		tc.Skipped = &junit.Result{Message: "not applicable: " + oneLine(c.Reason)}
	case StatusInconclusive:
		tc.Error = &junit.Result{Message: oneLine(c.Reason), Type: "inconclusive", Data: xmlSafe(checkDetails(c))}
	case StatusPass:
	default:
		tc.Error = &junit.Result{Message: fmt.Sprintf("unknown status %q", c.Status), Type: "inconclusive"}
	}
	return tc
}

// checkDetails is the plain-text body of a failed or inconclusive check,
// with every exchange of evidence.
func checkDetails(c Check) string {
	var b strings.Builder
	line := func(name, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%s: %s\n", name, v)
		}
	}
	line("source", c.Source)
	line("level", string(c.Level))
	line("expected", c.Expected)
	line("observed", c.Observed)
	line("reason", c.Reason)
	if len(c.Evidence) > 0 {
		if c.EvidenceTotal > len(c.Evidence) {
			fmt.Fprintf(&b, "evidence (%d of %d exchanges, around each injected fault; the journal has them all):\n", len(c.Evidence), c.EvidenceTotal)
		} else {
			b.WriteString("evidence:\n")
		}
		for _, e := range c.Evidence {
			fmt.Fprintf(&b, "  %s\n", exchangeLine(e))
		}
	}
	if len(c.Counterexample) > 0 {
		b.WriteString("counterexample:\n")
		for i, step := range c.Counterexample {
			fmt.Fprintf(&b, "  %d. %s\n", i+1, step)
		}
	}
	line("reproduce", c.Reproduce)
	return b.String()
}

// seconds formats a duration the way JUnit expects: decimal seconds.
func seconds(d Duration) string { return fmt.Sprintf("%.3f", time.Duration(d).Seconds()) }

// xmlSafe replaces characters XML 1.0 forbids (control characters, invalid
// UTF-8) with U+FFFD: encoding/xml escapes attributes but writes CDATA raw,
// and a target's garbage must not make the XML unparsable.
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r',
			r >= 0x20 && r <= 0xD7FF,
			r >= 0xE000 && r <= 0xFFFD,
			r >= 0x10000 && r <= 0x10FFFF:
			return r
		}
		return '\uFFFD'
	}, s)
}
