package reports

import (
	"fmt"
	"strings"
	"time"
)

// Gate is the rule that turned the checks into the verdict: which failed
// checks fail the run. The zero value (a report written before gates
// existed) is read as "every failure fails the run".
type Gate struct {
	// FailOn is the weakest level whose failures fail the run: MUST (with
	// MUST NOT), SHOULD (and SHOULD NOT), RECOMMENDED or CONVENTION (any).
	FailOn Level `json:"fail_on"`
	// Source says where FailOn came from: "default", "spec" or "--fail-on".
	Source string `json:"source"`
	// NewOnly means only failures the baseline did not have fail the run.
	NewOnly bool     `json:"new_only,omitempty"`
	Waivers []Waiver `json:"waivers,omitempty"`
}

// Waiver accepts the failure of one check until a date, for a stated reason.
type Waiver struct {
	Check   string      `json:"check"`
	Reason  string      `json:"reason"`
	Expires string      `json:"expires"` // YYYY-MM-DD, the last day (UTC) the waiver holds
	State   WaiverState `json:"state"`   // what the waiver did in this run; ApplyGate sets it
}

// WaiverState is what a waiver did in one run.
type WaiverState string

// The waiver states. An expired waiver waives nothing: its check's failure
// counts as if there were no waiver.
const (
	WaiverApplied WaiverState = "applied" // the check failed (or was inconclusive) and the waiver accepted it
	WaiverUnused  WaiverState = "unused"  // the check passed or did not apply: the waiver can go
	WaiverExpired WaiverState = "expired" // past its date: it no longer waives
	WaiverNotRun  WaiverState = "not-run" // the check was not part of this run
)

// GateOutcome says how the gate treated one check that failed or was
// inconclusive; empty means it counted (and so on reports without a gate).
type GateOutcome string

// The gate outcomes of a failed or inconclusive check.
const (
	GateCounted GateOutcome = "counted"         // it fails the run (or makes it inconclusive)
	GateWaived  GateOutcome = "waived"          // a waiver in force accepts it
	GateBelow   GateOutcome = "below-threshold" // its level is weaker than the gate's fail_on
	GateKnown   GateOutcome = "known"           // the baseline failed it too, and the gate counts new failures only
)

// DefaultFailOn is the gate when neither the spec nor the command line sets
// one: every failed check fails the run, whatever its level.
const DefaultFailOn = LevelConvention

// ParseFailOn reads a gate threshold: must, should, recommended or
// convention, in any case ("MUST NOT" and "SHOULD NOT" name the same ranks
// as MUST and SHOULD).
func ParseFailOn(s string) (Level, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "MUST", "MUST NOT", "MUST-NOT":
		return LevelMust, nil
	case "SHOULD", "SHOULD NOT", "SHOULD-NOT":
		return LevelShould, nil
	case "RECOMMENDED":
		return LevelRecommended, nil
	case "CONVENTION":
		return LevelConvention, nil
	}
	return "", fmt.Errorf("unknown level %q: want must, should, recommended or convention", s)
}

// rank orders levels for the gate, strictest first. A check without a
// known level ranks with MUST, so a level nobody recognises never lets a
// failure through.
func (l Level) rank() int {
	switch l {
	case LevelShould, LevelShouldNot:
		return 1
	case LevelRecommended:
		return 2
	case LevelConvention:
		return 3
	}
	return 0
}

// Gates reports whether a failure at level l fails a run gated at failOn.
func (l Level) Gates(failOn Level) bool { return l.rank() <= failOn.rank() }

// Expired reports whether the waiver no longer holds on day now (UTC): it
// holds through its Expires date. A date that does not parse is expired.
func (w Waiver) Expired(now time.Time) bool {
	d, err := time.Parse(time.DateOnly, w.Expires)
	return err != nil || !now.UTC().Before(d.AddDate(0, 0, 1))
}

// ApplyGate records g in r, sets every waiver's state and the gate outcome
// of every failed or inconclusive check, then finalizes r so the verdict
// follows the gate. With g.NewOnly, CompareBaseline must have run first.
// now decides which waivers have expired.
func (r *Report) ApplyGate(g Gate, now time.Time) {
	if g.FailOn == "" {
		g.FailOn = DefaultFailOn
	}
	g.Waivers = append([]Waiver(nil), g.Waivers...)
	waiver := map[string]int{}
	for i := range g.Waivers {
		w := &g.Waivers[i]
		w.State = WaiverNotRun
		if w.Expired(now) {
			w.State = WaiverExpired
		}
		waiver[strings.ToUpper(w.Check)] = i
	}
	for i := range r.Checks {
		c := &r.Checks[i]
		wi, hasWaiver := waiver[strings.ToUpper(c.ID)]
		if hasWaiver && g.Waivers[wi].State == WaiverNotRun {
			g.Waivers[wi].State = WaiverUnused
		}
		c.Gate = ""
		if c.Status != StatusFail && c.Status != StatusInconclusive {
			continue
		}
		switch {
		case hasWaiver && g.Waivers[wi].State != WaiverExpired:
			c.Gate, g.Waivers[wi].State = GateWaived, WaiverApplied
		case !c.Level.Gates(g.FailOn):
			c.Gate = GateBelow
		case g.NewOnly && c.Status == StatusFail && c.Change != ChangeNew:
			c.Gate = GateKnown
		default:
			c.Gate = GateCounted
		}
	}
	r.Gate = &g
	r.Finalize()
}

// counts reports whether the gate counts c towards the verdict: only the
// outcomes that excuse a check do not, so an unknown one never hides a failure.
func (c Check) counts() bool {
	return c.Gate != GateWaived && c.Gate != GateBelow && c.Gate != GateKnown
}
