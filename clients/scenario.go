package clients

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Outcome is how an operation ends for the client.
type Outcome string

// The outcomes a scenario may expect.
const (
	ExpectSuccess Outcome = "success"  // the client retries until an attempt succeeds, and says so
	ExpectGiveUp  Outcome = "give-up"  // the client stops within its cap and deadline, and reports failure
	ExpectNoRetry Outcome = "no-retry" // one attempt, and a reported failure
)

var outcomes = []Outcome{ExpectSuccess, ExpectGiveUp, ExpectNoRetry}

// Scenario is one operation's script: the answer to each attempt in order,
// the answer to every attempt after them, and the expected outcome.
type Scenario struct {
	ID       string  `yaml:"id"`     // unique; letters, digits and -; the scenario's URL path is /scenarios/ID
	Title    string  `yaml:"title"`  // what the server does, as reports print it
	Method   string  `yaml:"method"` // empty = GET
	Key      bool    `yaml:"key"`    // the operation carries an idempotency key (the client template's {{.Key}})
	Attempts []Step  `yaml:"attempts"`
	Then     Step    `yaml:"then"` // the answer after Attempts; zero = 200
	Expect   Outcome `yaml:"expect"`
	// Instances runs the scenario this many times at once, each at its own
	// path, as concurrent clients would; 0 = 1.
	Instances int `yaml:"instances"`
}

// ScenarioFile is the versioned file scenarios ship in.
type ScenarioFile struct {
	Version   int        `yaml:"version"`
	Scenarios []Scenario `yaml:"scenarios"`
}

// ScenarioVersion is the only scenario file version this package reads.
const ScenarioVersion = 1

//go:embed scenarios.yaml
var builtinScenarios []byte

// Scenarios returns the built-in scenarios, in the order they are listed.
func Scenarios() []Scenario {
	s, err := ParseScenarios(builtinScenarios)
	if err != nil {
		panic(fmt.Sprintf("clients: built-in scenarios: %v", err)) // a test guards it
	}
	return s
}

// ParseScenarios decodes a scenario file strictly and validates it.
func ParseScenarios(raw []byte) ([]Scenario, error) {
	var f ScenarioFile
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("clients: scenarios: %w", err)
	}
	if f.Version != ScenarioVersion {
		return nil, fmt.Errorf("clients: scenarios: version %d; this resilcheck reads version %d", f.Version, ScenarioVersion)
	}
	if err := ValidateScenarios(f.Scenarios); err != nil {
		return nil, err
	}
	return f.Scenarios, nil
}

// maxInstances bounds how many copies of a scenario run at once.
const maxInstances = 20

var scenarioID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]*$`)

// ValidateScenarios returns every problem of a list of scenarios: IDs
// unique and path-safe, steps valid, an expectation the script allows.
func ValidateScenarios(ss []Scenario) error {
	var errs []error
	seen := map[string]bool{}
	for i, s := range ss {
		bad := func(format string, a ...any) {
			errs = append(errs, fmt.Errorf("scenario %d (%s): %s", i+1, s.ID, fmt.Sprintf(format, a...)))
		}
		switch {
		case !scenarioID.MatchString(s.ID):
			bad("id: want letters, digits and -")
		case seen[s.ID]:
			bad("id used twice")
		}
		seen[s.ID] = true
		if !slices.Contains(outcomes, s.Expect) {
			bad("expect %q: want one of %v", s.Expect, outcomes)
		}
		if s.Method != "" && strings.ToUpper(s.Method) != s.Method {
			bad("method %q: write it in upper case", s.Method)
		}
		for j, st := range append(slices.Clip(s.Attempts), s.Then) {
			if err := st.Validate(); err != nil {
				bad("step %d: %v", j+1, err)
			}
		}
		if s.Instances < 0 || s.Instances > maxInstances {
			bad("instances %d: want 1 to %d", s.Instances, maxInstances)
		}
		if s.Expect == ExpectSuccess && s.Then.status() >= 300 {
			bad("expect success, but the answer after the script is %d", s.Then.status())
		}
	}
	return errors.Join(errs...)
}

func (s Scenario) method() string {
	if s.Method == "" {
		return http.MethodGet
	}
	return s.Method
}

// idempotent says whether the scenario's method is idempotent (RFC 9110 §9.2.2).
func (s Scenario) idempotent() bool {
	switch s.method() {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// step returns the answer to attempt n (from 1).
func (s Scenario) step(n int) Step {
	if n <= len(s.Attempts) {
		return s.Attempts[n-1]
	}
	return s.Then
}

// stalls says whether some attempt of the script gets no answer.
func (s Scenario) stalls() bool {
	return slices.ContainsFunc(s.Attempts, func(st Step) bool { return st.Fault == FaultStall }) || s.Then.Fault == FaultStall
}

// slow says whether some attempt of the script is answered late.
func (s Scenario) slow() bool {
	return slices.ContainsFunc(s.Attempts, func(st Step) bool { return st.Delay > 0 }) || s.Then.Delay > 0
}

// waits is how long the script's Retry-After values make a client wait
// before the attempt that succeeds.
func (s Scenario) waits() time.Duration {
	var d time.Duration
	for _, st := range s.Attempts {
		d += st.RetryAfter
	}
	return d
}

// expected is the outcome a client with policy p reaches on s: success
// needs the attempts, the time and the method to be within what p allows.
func (s Scenario) expected(p Policy) Outcome {
	if s.Expect != ExpectSuccess {
		return s.Expect
	}
	switch {
	case !p.retries(s.method()):
		return ExpectNoRetry
	case p.MaxAttempts > 0 && len(s.Attempts)+1 > p.MaxAttempts:
		return ExpectGiveUp
	case p.Deadline > 0 && s.waits() >= p.Deadline:
		return ExpectGiveUp
	}
	return ExpectSuccess
}
