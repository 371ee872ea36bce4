package clients

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/targets"
)

// ErrNotLaunched is the launcher's answer for kind client: a client is not
// brought up and certified behind the proxies; certify runs the client
// suite against it instead (FromSpec, Run).
var ErrNotLaunched = errors.New("clients: a kind-client target is not launched: resilcheck certify runs the client suite against it")

// Kind is kind client, for the table of kinds a program brings up: the
// checks of the client section. Its launcher only returns ErrNotLaunched.
func Kind() launch.Kind {
	return launch.Kind{
		Spec:     targets.KindSpec{Validate: validateSpec},
		Launcher: func(*targets.Target) (launch.Launcher, error) { return nil, ErrNotLaunched },
	}
}

// validateSpec tries the client's command on a sample call and parses its
// scenario file, so a broken template or scenario fails at validation.
func validateSpec(t *targets.Target) []targets.Problem {
	var probs []targets.Problem
	c := t.Client
	if len(c.Command) > 0 {
		if err := (Command{Argv: c.Command, Env: c.Env}).Validate(); err != nil {
			probs = append(probs, targets.Problem{Path: "client.command", Msg: err.Error()})
		}
	}
	if c.Scenarios != "" {
		if _, err := LoadScenarios(specPath(t, c.Scenarios)); err != nil {
			probs = append(probs, targets.Problem{Path: "client.scenarios", Msg: err.Error()})
		}
	}
	return probs
}

// specPath resolves a path of the spec against the spec's directory.
func specPath(t *targets.Target, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(t.Dir, p)
}

// LoadScenarios reads a scenario file.
func LoadScenarios(path string) ([]Scenario, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("clients: %w", err)
	}
	ss, err := ParseScenarios(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ss, nil
}

// FromSpec returns the client, policy and scenarios a validated, defaulted
// kind-client spec declares: the built-in scenarios and those of its
// scenario file.
func FromSpec(t *targets.Target) (Client, Policy, []Scenario, error) {
	if t.Kind != targets.KindClient {
		return nil, Policy{}, nil, fmt.Errorf("clients: target %s is of kind %s, not client", t.Name, t.Kind)
	}
	c := t.Client
	p := Policy{MaxAttempts: c.Policy.MaxAttempts, Deadline: c.Policy.Deadline, AttemptTimeout: c.Policy.AttemptTimeout,
		Methods: c.Policy.Methods, KeyHeader: c.Policy.KeyHeader,
		HedgeDelay: c.Policy.Hedging.Delay, HedgeCopies: c.Policy.Hedging.MaxCopies}
	scenarios := Scenarios()
	if c.Scenarios != "" {
		extra, err := LoadScenarios(specPath(t, c.Scenarios))
		if err != nil {
			return nil, Policy{}, nil, err
		}
		scenarios = append(scenarios, extra...)
	}
	return Command{Argv: c.Command, Env: c.Env, Dir: c.Dir}, p, scenarios, nil
}
