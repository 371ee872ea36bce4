package suites

import (
	"fmt"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/properties"
)

// exploration is what a property check says about its run, whatever the
// outcome.
type exploration struct {
	want       string // the property, as the result's Expected
	meaningful string // what a case that counts did, e.g. "reached the dependency"
	held       string // appended to a pass's observation; may be empty
}

// result turns a property run under cfg into the check's result:
// inconclusive when too few cases counted, a pass, or a failure with
// rapid's message, the shrunk story and evidence.
func (e exploration) result(r properties.Result, cfg properties.Config, evidence []faults.Entry) Result {
	observed := fmt.Sprintf("%d cases (%d %s) in %s, seed %d", r.Cases, r.Meaningful, e.meaningful, cfg.Budget, cfg.Seed)
	switch {
	case r.Inconclusive:
		return inconclusive("only %d of %d cases %s (%s); %d needed", r.Meaningful, r.Cases, e.meaningful, observed, max(cfg.MinCases, 1))
	case !r.Failed:
		return pass(e.want, "held over "+observed+e.held)
	}
	out := fail(e.want, fmt.Sprintf("%s (seed %d, shrunk to the story below)", r.Message, cfg.Seed), evidence...)
	out.Counterexample = r.Story
	return out
}
