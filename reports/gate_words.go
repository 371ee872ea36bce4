package reports

import (
	"cmp"
	"fmt"
	"strings"
)

// failOnWords names the levels a gate fails on, e.g. "MUST, MUST NOT and
// SHOULD, SHOULD NOT failures".
func failOnWords(l Level) string {
	var names []string
	for _, x := range Levels() {
		if x.Gates(l) {
			names = append(names, string(x))
		}
	}
	if len(names) == len(Levels()) {
		return "any failure"
	}
	return strings.Join(names, ", ") + " failures"
}

// gateWords describes the gate in one sentence fragment, e.g. "fails on
// MUST, MUST NOT failures (--fail-on), new since the baseline only".
func gateWords(g *Gate) string {
	s := fmt.Sprintf("fails on %s (%s)", failOnWords(g.FailOn), g.Source)
	if g.NewOnly {
		s += ", new since the baseline only"
	}
	return s
}

// gateNote says why the gate did not count a failed or inconclusive check;
// "" when it counted.
func gateNote(c Check, g *Gate) string {
	switch c.Gate {
	case GateWaived:
		for _, w := range gateWaivers(g) {
			if strings.EqualFold(w.Check, c.ID) {
				return fmt.Sprintf("waived until %s: %s", w.Expires, oneLine(w.Reason))
			}
		}
		return "waived"
	case GateBelow:
		return fmt.Sprintf("not gating: %s is below the gate (%s)", cmp.Or(string(c.Level), "no level"), failOnWords(gateFailOn(g)))
	case GateKnown:
		return "not gating: the baseline failed it too"
	}
	return ""
}

// waiverWords describes one waiver and what it did.
func waiverWords(w Waiver) string {
	what := map[WaiverState]string{
		WaiverApplied: "applied", WaiverUnused: "unused: the check did not fail, remove the waiver",
		WaiverExpired: "EXPIRED: it no longer waives", WaiverNotRun: "the check did not run",
	}[w.State]
	return fmt.Sprintf("%s until %s (%s): %s", w.Check, w.Expires, cmp.Or(what, string(w.State)), oneLine(w.Reason))
}

// baselineWords summarises the comparison with the baseline.
func baselineWords(b *Baseline) string {
	s := fmt.Sprintf("%d new, %d fixed, %d unchanged", len(b.New), len(b.Fixed), len(b.Unchanged))
	if n := len(b.NotRechecked); n > 0 {
		s += fmt.Sprintf(", %d not rechecked", n)
	}
	return s
}

// baselineLists names the checks in each non-empty list of b.
func baselineLists(b *Baseline) []string {
	var out []string
	for _, l := range []struct {
		name string
		ids  []string
	}{{"new", b.New}, {"fixed", b.Fixed}, {"unchanged", b.Unchanged}, {"not rechecked", b.NotRechecked}} {
		if len(l.ids) > 0 {
			out = append(out, l.name+": "+strings.Join(l.ids, " "))
		}
	}
	return out
}

func gateWaivers(g *Gate) []Waiver {
	if g == nil {
		return nil
	}
	return g.Waivers
}

func gateFailOn(g *Gate) Level {
	if g == nil {
		return DefaultFailOn
	}
	return g.FailOn
}

// excusedWords counts the failed and inconclusive checks the gate did not
// count, e.g. "; 1 waived, 1 below the gate"; "" when it counted them all.
func excusedWords(r *Report) string {
	n := map[GateOutcome]int{}
	for _, c := range r.Checks {
		if !c.counts() {
			n[c.Gate]++
		}
	}
	var parts []string
	for _, o := range []struct {
		gate GateOutcome
		word string
	}{{GateWaived, "waived"}, {GateBelow, "below the gate"}, {GateKnown, "known from the baseline"}} {
		if n[o.gate] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[o.gate], o.word))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "; not gating: " + strings.Join(parts, ", ")
}
