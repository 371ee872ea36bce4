package targets

import (
	"fmt"
	"path/filepath"
	"strings"
)

// checkClient validates the client section of a kind-client spec and
// rejects the service sections it has no use for. The command's templates
// are tried by the kind's plugin (package clients), which knows the call.
func (v *validator) checkClient() {
	if v.kind != KindClient {
		return
	}
	c := v.t.Client
	if len(c.Command) == 0 {
		v.errf("client.command", `required for kind client; expected argv such as [curl, --retry, "3", --fail, "{{.URL}}"]`)
	}
	for i, a := range c.Command {
		if strings.TrimSpace(a) == "" {
			v.errf(fmt.Sprintf("client.command[%d]", i), "must not be empty")
		}
	}
	p := c.Policy
	if p.MaxAttempts < 0 {
		v.errf("client.policy.max_attempts", "must not be negative, got %d", p.MaxAttempts)
	}
	v.positive("client.policy.deadline", p.Deadline, p.Deadline < 0)
	v.positive("client.policy.attempt_timeout", p.AttemptTimeout, p.AttemptTimeout < 0)
	for i, m := range p.Methods {
		if msg := methodProblem(m); msg != "" {
			v.errf(fmt.Sprintf("client.policy.methods[%d]", i), "%s", msg)
		}
	}
	if p.KeyHeader != "" {
		if msg := headerProblem(p.KeyHeader); msg != "" {
			v.errf("client.policy.key_header", "%s", msg)
		}
	}
	if h := p.Hedging; h != (ClientHedging{}) || v.written("client.policy.hedging") {
		if h.Delay <= 0 {
			v.keyErrf("client.policy.hedging.delay", "hedging needs delay > 0, how long an attempt is outstanding before the next copy, e.g. delay: 300ms")
		}
		if h.MaxCopies == 1 || h.MaxCopies < 0 {
			v.errf("client.policy.hedging.max_copies", "expected at least 2 (the first copy counts; 1 is no hedging), got %d", h.MaxCopies)
		}
	}
	v.positive("client.startup_allowance", c.StartupAllowance, c.StartupAllowance < 0)
	if c.Scenarios != "" {
		v.plain("client.scenarios", c.Scenarios, "the scenario file is a plain path, relative to the spec file")
	}
	for section, set := range map[string]bool{
		"operations": len(v.t.Operations) > 0, "dependencies": len(v.t.Dependencies) > 0,
		"effects": !isZero(v.t.Effects), "service": !isZero(v.t.Service),
		"webhooks":       !isZero(v.t.Webhooks) || v.written("webhooks"),
		"webhook_sender": !isZero(v.t.WebhookSender) || v.written("webhook_sender"),
		"queue_consumer": !isZero(v.t.QueueConsumer) || v.written("queue_consumer"),
		"outbox":         !isZero(v.t.Outbox) || v.written("outbox"),
	} {
		if set {
			v.keyErrf(section, "kind client has no %s: resilcheck is the server the client calls", section)
		}
	}
}

// defaultClient makes the client's directory absolute, as Defaults stays
// idempotent so, and names the default key header.
func (t *Target) defaultClient() {
	c := &t.Client
	if !filepath.IsAbs(c.Dir) {
		dir := filepath.Join(t.Dir, c.Dir)
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		c.Dir = dir
	}
	if c.Scenarios != "" {
		c.Scenarios = besideSpec(t.Dir, c.Scenarios)
	}
	if c.Policy.KeyHeader == "" {
		c.Policy.KeyHeader = DefaultKeyHeader
	}
}
