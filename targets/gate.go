package targets

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Gate says which failed checks fail a certification run. The zero value
// fails the run on any failed check.
type Gate struct {
	// FailOn is the weakest level whose failures fail the run: must (MUST and
	// MUST NOT), should (and SHOULD NOT), recommended, or convention (any
	// failure); empty = convention. certify --fail-on overrides it.
	FailOn string `yaml:"fail_on"`
	// Waivers accept the failures of named checks until a date.
	Waivers []Waiver `yaml:"waivers"`
}

// Waiver accepts one check's failure, for a stated reason, until a date.
// Past that date it waives nothing and every report says it expired.
type Waiver struct {
	Check   string `yaml:"check"`   // a check ID such as RL-07; required, at most one waiver per check
	Reason  string `yaml:"reason"`  // why the failure is accepted (a ticket, a plan); required
	Expires string `yaml:"expires"` // YYYY-MM-DD, the last day (UTC) the waiver holds; required
}

// FailOnLevels are the values gate.fail_on takes, strictest first.
var FailOnLevels = []string{"must", "should", "recommended", "convention"}

var checkIDPattern = regexp.MustCompile(`^[A-Za-z]+-[0-9A-Za-z]+$`)

func (v *validator) checkGate() {
	g := v.t.Gate
	if g.FailOn != "" && !slices.Contains(FailOnLevels, strings.ToLower(g.FailOn)) {
		v.errf("gate.fail_on", "unknown level %q; expected one of %s", g.FailOn, strings.Join(FailOnLevels, ", "))
	}
	seen := map[string]int{}
	for i, w := range g.Waivers {
		at := fmt.Sprintf("gate.waivers[%d].", i)
		v.checkWaiverID(at+"check", w.Check)
		if j, dup := seen[strings.ToUpper(w.Check)]; dup && w.Check != "" {
			v.errf(at+"check", "a second waiver for %s (the first is waivers[%d]); keep one", w.Check, j)
		}
		seen[strings.ToUpper(w.Check)] = i
		if strings.TrimSpace(w.Reason) == "" {
			v.errf(at+"reason", "required: why the failure is accepted (a ticket, a plan); every report shows it")
		}
		if _, err := time.Parse(time.DateOnly, w.Expires); err != nil {
			v.errf(at+"expires", "expected the waiver's last day as YYYY-MM-DD, got %q; a waiver without an end is a hole in the gate", w.Expires)
		}
	}
}

func (v *validator) checkWaiverID(path, id string) {
	known, listed := v.opts.knownCheck(id)
	switch {
	case id == "":
		v.errf(path, "required: the ID of the check whose failure is waived, such as RL-07 (resilcheck checks lists them)")
	case listed && !known:
		v.errf(path, "unknown check %q; resilcheck checks lists the IDs", id)
	case !listed && !checkIDPattern.MatchString(id):
		v.errf(path, "expected a check ID such as RL-07, got %q", id)
	}
}
