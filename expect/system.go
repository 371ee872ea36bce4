package expect

import (
	"errors"
	"fmt"
	"os"

	"go.yaml.in/yaml/v3"

	"github.com/resilcheck/resilcheck/reports"
)

// Want is what a target must show on one check.
type Want struct {
	// Allowed are the statuses the check may end with: one, or pass and
	// fail for a may_fail.
	Allowed []reports.Status
	// Why is the reason, from the target's code; empty for a check the
	// variants format leaves unnamed (it must pass).
	Why string
	// Tier is where a failure must be laid on a multi-tier target: a
	// tier's name, CannotTell where resilcheck must name none, or "" where
	// the tier is not judged (a single tier).
	Tier string
}

// Agrees reports whether status s, laid at tier, is what w allows. The
// tier is judged only for a failure that w expects at a tier: a name, or
// CannotTell (then no tier may be named).
func (w Want) Agrees(s reports.Status, tier string) bool {
	for _, a := range w.Allowed {
		if a == s {
			return s != reports.StatusFail || w.Tier == "" || (Expectation{Tier: w.Tier}).TierOf() == tier
		}
	}
	return false
}

// Target is what one target, as its target.yaml describes it, must show
// on every check: the per-check format as written, or the variants
// format's variant that breaks nothing and changes no spec.
type Target struct {
	Name     string
	Versions map[string]string // what the expectations were read from
	// Seed is the seed the expectations were decided at, which a matrix
	// certifies the target with; 0: any seed.
	Seed uint64
	// Run narrows the checks certified (certify.Config.Checks); empty means
	// every check of the target's kind.
	Run    []string
	Checks map[string]Want // by check ID; a check missing here must pass
}

// Want returns what t expects of check id: a check t does not name must
// pass.
func (t *Target) Want(id string) Want {
	if w, ok := t.Checks[id]; ok {
		return w
	}
	return Want{Allowed: []reports.Status{reports.StatusPass}}
}

// LoadTarget reads the expectations file at path in either format,
// checked against the check IDs ids, and returns what the target as
// written must show.
func LoadTarget(path string, ids []string) (*Target, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("expect: %w", err)
	}
	var top map[string]yaml.Node
	if err := yaml.Unmarshal(raw, &top); err != nil {
		return nil, fmt.Errorf("expect %s: %w", path, err)
	}
	if _, ok := top["variants"]; !ok {
		v, err := LoadVerdicts(path, ids)
		if err != nil {
			return nil, err
		}
		t := &Target{Name: v.Service, Versions: v.Versions, Seed: v.Seed, Run: v.Run, Checks: map[string]Want{}}
		for id, x := range v.Checks {
			t.Checks[id] = Want{Allowed: []reports.Status{x.Expect}, Why: x.Why, Tier: x.Tier}
		}
		return t, nil
	}
	f, err := Load(path, ids)
	if err != nil {
		return nil, err
	}
	for _, v := range f.Variants {
		if v.Break != "" || v.Spec != "" {
			continue
		}
		t := &Target{Name: f.Target, Versions: f.Versions, Seed: f.Seed, Run: v.Run, Checks: map[string]Want{}}
		for _, m := range v.verdicts() {
			for id, why := range m {
				t.Checks[id] = Want{Allowed: v.Allowed(id), Why: why}
			}
		}
		return t, nil
	}
	return nil, fmt.Errorf("expect %s: %w", path, ErrNoPlainVariant)
}

// ErrNoPlainVariant is LoadTarget's error for a variants file whose every
// variant breaks the target or changes its spec: none says what the
// target as written must show.
var ErrNoPlainVariant = errors.New("no variant certifies the target as written (every one has a break or a spec)")
