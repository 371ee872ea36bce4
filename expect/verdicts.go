package expect

// The second format: one verdict per check for a target certified as
// written (the foreign zoo's services), with the tier a multi-tier
// target's failure must be laid at.

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/resilcheck/resilcheck/reports"
)

// Expectation is what one check should conclude about a service, and why,
// from reading that service's code or its libraries' code and docs.
type Expectation struct {
	// Expect is pass, fail or not-applicable; inconclusive only where the
	// service's own design leaves the check nothing to exercise (issue 10:
	// such a run is inconclusive, never pass), the why saying so.
	Expect reports.Status `yaml:"expect"`
	Why    string         `yaml:"why"` // one line, citing file/line or doc section
	// Tier is, for a failure on a service that declares tiers, the tier
	// the failure must be laid at (reports.Check.Tier), or "cannot tell"
	// where the hops' exchanges do not say; required there.
	Tier string `yaml:"tier"`
}

// CannotTell is the Tier of a failure whose tier resilcheck must say it
// cannot name.
const CannotTell = "cannot tell"

// TierOf is the tier x expects, as reports name it: "" for CannotTell.
func (x Expectation) TierOf() string {
	if x.Tier == CannotTell {
		return ""
	}
	return x.Tier
}

// Verdicts are a service's expected verdicts by check ID.
type Verdicts struct {
	Service string `yaml:"service"`
	// Versions name what the verdicts were read from (see File.Versions).
	Versions map[string]string `yaml:"versions"`
	// Seed is the seed the verdicts were decided at (see File.Seed).
	Seed uint64 `yaml:"seed"`
	// Run lists the checks the service is certified by (certify.Config.Checks),
	// when not every one: a variant of another zoo service that only some
	// checks tell apart. Empty = all.
	Run    []string               `yaml:"run"`
	Checks map[string]Expectation `yaml:"checks"`
}

// verdicts are the statuses an expectation may name.
var verdicts = []reports.Status{reports.StatusPass, reports.StatusFail, reports.StatusNotApplicable, reports.StatusInconclusive}

// LoadVerdicts reads an expectations file in the per-check format and
// checks that it names a verdict with a reason for exactly the check IDs
// in ids, or in its run list when it has one (each of them in ids).
func LoadVerdicts(path string, ids []string) (*Verdicts, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("expect: %w", err)
	}
	var e Verdicts
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	dec.KnownFields(true)
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("expect %s: %w", path, err)
	}
	var errs []error
	if len(e.Run) > 0 {
		for _, id := range e.Run {
			if !slices.Contains(ids, id) {
				errs = append(errs, fmt.Errorf("run: %s is not a check", id))
			}
		}
		ids = e.Run
	}
	known := map[string]bool{}
	for _, id := range ids {
		known[id] = true
		x, ok := e.Checks[id]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("%s: no expectation", id))
		case !slices.Contains(verdicts, x.Expect):
			errs = append(errs, fmt.Errorf("%s: expect %q; want one of %v", id, x.Expect, verdicts))
		case strings.TrimSpace(x.Why) == "":
			errs = append(errs, fmt.Errorf("%s: no why", id))
		case x.Tier != "" && x.Expect != reports.StatusFail:
			errs = append(errs, fmt.Errorf("%s: a tier for an expected %s; only a failure is laid at a tier", id, x.Expect))
		}
	}
	for id := range e.Checks {
		if !known[id] {
			errs = append(errs, fmt.Errorf("%s: not a check", id))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("expect %s: %w", path, err)
	}
	return &e, nil
}

// NeedTiers reports the expected failures that name no tier, for a
// service whose spec declares tiers.
func (e *Verdicts) NeedTiers(tiers []string) error {
	var errs []error
	for _, id := range slices.Sorted(maps.Keys(e.Checks)) {
		x := e.Checks[id]
		switch {
		case x.Expect != reports.StatusFail:
		case x.Tier == "":
			errs = append(errs, fmt.Errorf("%s: an expected failure on a multi-tier service names no tier (one of %s, or %q)", id, strings.Join(tiers, ", "), CannotTell))
		case x.Tier != CannotTell && !slices.Contains(tiers, x.Tier):
			errs = append(errs, fmt.Errorf("%s: tier %q is not one of %s", id, x.Tier, strings.Join(tiers, ", ")))
		}
	}
	return errors.Join(errs...)
}

// Count returns how many checks expect status s.
func (e *Verdicts) Count(s reports.Status) int {
	n := 0
	for _, x := range e.Checks {
		if x.Expect == s {
			n++
		}
	}
	return n
}
