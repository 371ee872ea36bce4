package targets

import (
	"slices"
	"strings"
)

// checkWebhooks checks the webhooks section: a path, a known scheme, one
// secret that decodes, an event template, and a way to count effects.
func (v *validator) checkWebhooks() {
	w := v.t.Webhooks
	const at = "webhooks."
	if !w.Declared() {
		if !isZero(w) || v.written("webhooks") {
			v.keyErrf(at+"path", "required: where resilcheck delivers events, e.g. path: /v1/webhooks; leave webhooks out if the service receives none")
		}
		return
	}
	if !strings.HasPrefix(w.Path, "/") || strings.ContainsAny(w.Path, "?# ") {
		v.errf(at+"path", "expected a path under service.url starting with /, without query, got %q", w.Path)
	}
	if w.Scheme != "" && w.Scheme != SchemeStandard {
		v.errf(at+"scheme", "unknown webhook scheme %q; expected %s (Standard Webhooks 1.0.0)", w.Scheme, SchemeStandard)
	}
	v.checkWebhookSecret("webhooks", "the signing secret", w.Secret, w.SecretEnv)
	if w.Body != "" {
		v.template(at+"body", w.Body, sampleRequest)
	}
	v.checkWebhookEffects(w.Effects)
	v.checkWebhookOrdering(w.Ordering)
}

// checkWebhookSecret checks the secret of section (what names its use):
// exactly one of secret and env, decoding as a Standard Webhooks secret.
func (v *validator) checkWebhookSecret(section, what, secret, env string) {
	at := section + "."
	switch {
	case secret != "" && env != "":
		v.errf(at+"secret_env", "set secret or secret_env, not both")
	case secret == "" && env == "":
		v.keyErrf(at+"secret", "required: %s (whsec_...), or secret_env: the variable holding it", what)
	default:
		if _, err := webhookKey(section, secret, env); err != nil {
			path := at + "secret"
			if env != "" {
				path = at + "secret_env"
			}
			v.errf(path, "%s", strings.TrimPrefix(err.Error(), "targets: "+section+": "))
		}
	}
}

// checkWebhookEffects checks webhooks.effects, or that the target's own
// effects can count an event's.
func (v *validator) checkWebhookEffects(e Effects) {
	const at = "webhooks.effects"
	if isZero(e) {
		if isZero(v.t.Effects) {
			v.keyErrf(at, "declare how an event's effect is counted: probe: {url: ...} read with .Key the event id, or ledger: {dependency: NAME}")
		}
		return
	}
	if l := e.Ledger; !isZero(l) {
		top := v.t.Effects.Ledger.Dependency
		switch {
		case !slices.Contains(v.deps, l.Dependency):
			v.errf(at+".ledger.dependency", "no dependency is named %q; declared: %s", l.Dependency, orNone(v.deps))
		case top != "" && l.Dependency != top:
			v.errf(at+".ledger.dependency", "the ledger counts at one dependency: effects.ledger names %q", top)
		}
		if l.KeyHeader != "" {
			if msg := headerProblem(l.KeyHeader); msg != "" {
				v.errf(at+".ledger.key_header", "%s", msg)
			}
		}
	}
	v.checkProbe(at+".probe", e.Probe)
}
