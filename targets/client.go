package targets

import "time"

// KindClient is a retrying client (an SDK, a gateway, a command-line tool)
// that resilcheck certifies by playing its server: client.command runs once
// per scenario of the client suite. Package clients provides the kind
// (clients.Kind).
const KindClient Kind = "client"

// Client describes a kind-client target. Command, Env and Dir are
// text/template templates over the call: {{.URL}}, {{.Method}}, {{.Key}},
// {{.KeyHeader}}, {{.Body}}, {{.Scenario}}; an argument that renders empty
// is left out, so {{if .Key}}-H{{end}} drops a flag.
type Client struct {
	Command []string          `yaml:"command"` // argv, run once per scenario; exit 0 = the client reports success; required
	Env     map[string]string `yaml:"env"`     // added to resilcheck's own environment
	Dir     string            `yaml:"dir"`     // working directory, relative to the spec file; empty = the spec file's directory
	Policy  ClientPolicy      `yaml:"policy"`  // what the client declares about its retries
	// Scenarios is a scenario file (relative to the spec file) whose
	// scenarios are run besides the built-in ones; empty = the built-in ones only.
	Scenarios string `yaml:"scenarios"`
	// StartupAllowance is how long a call may take to send its first
	// attempt (starting the client's process) without that counting
	// against its deadline, which is timed from the first attempt; 0 =
	// 10s. Reports list it among the tolerances.
	StartupAllowance time.Duration `yaml:"startup_allowance"`
}

// ClientPolicy is what a client declares about its retries; the client
// suite judges it against them. A zero field is undeclared, and the checks
// that need it are not applicable.
type ClientPolicy struct {
	MaxAttempts    int           `yaml:"max_attempts"`    // attempts per operation, the first included
	Deadline       time.Duration `yaml:"deadline"`        // bound on an operation, every attempt and wait included
	AttemptTimeout time.Duration `yaml:"attempt_timeout"` // bound on one attempt; 0 = none (the stalling scenarios are not run)
	Methods        []string      `yaml:"methods"`         // methods the client retries; empty = every method
	KeyHeader      string        `yaml:"key_header"`      // the idempotency key's header; empty = Idempotency-Key
	// Hedging is how the client hedges a slow attempt; the zero value
	// declares none (the hedging scenario is then not run).
	Hedging ClientHedging `yaml:"hedging"`
}

// ClientHedging says how a client hedges: once an attempt has been
// outstanding for Delay it sends another copy, up to MaxCopies in all, and
// cancels the others when one answers (gRFC A6 hedgingPolicy).
type ClientHedging struct {
	Delay     time.Duration `yaml:"delay"`      // how long a copy is outstanding before the next; required when declared
	MaxCopies int           `yaml:"max_copies"` // copies per attempt, the first included; 0 = 2
}
