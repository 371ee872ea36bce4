package targets

import (
	"fmt"
	"slices"
)

// checkWebhookSender checks the webhook_sender section: an endpoint that
// is a declared dependency the service reaches through resilcheck's stand-in,
// a known trigger and scheme, one secret that decodes, and a retry policy.
func (v *validator) checkWebhookSender() {
	w := v.t.WebhookSender
	const at = "webhook_sender."
	if !w.Declared() {
		if !isZero(w) || v.written("webhook_sender") {
			v.keyErrf(at+"endpoint", "required: the dependency the service delivers events to, e.g. endpoint: merchant; leave webhook_sender out if the service sends none")
		}
		return
	}
	if i := slices.IndexFunc(v.t.Dependencies, func(d Dependency) bool { return d.Name == w.Endpoint }); i < 0 {
		v.errf(at+"endpoint", "no dependency is named %q; declare it under dependencies (no upstream: resilcheck answers there); declared: %s", w.Endpoint, orNone(v.deps))
	} else if d := v.t.Dependencies[i]; d.Upstream != "" {
		v.errf(at+"endpoint", "dependency %q has an upstream: resilcheck must answer the deliveries itself, so leave its upstream out", w.Endpoint)
	} else if w.Endpoint == v.t.Effects.Ledger.Dependency {
		v.errf(at+"endpoint", "dependency %q is the effects ledger; the webhook endpoint must be a dependency of its own", w.Endpoint)
	}
	if w.Trigger != "" && !slices.ContainsFunc(v.t.Operations, func(o Operation) bool { return o.Name == w.Trigger }) {
		var names []string
		for _, o := range v.t.Operations {
			names = append(names, o.Name)
		}
		v.errf(at+"trigger", "no operation is named %q; declared: %s", w.Trigger, orNone(names))
	}
	if w.Scheme != "" && w.Scheme != SchemeStandard {
		v.errf(at+"scheme", "unknown webhook scheme %q; expected %s (Standard Webhooks 1.0.0)", w.Scheme, SchemeStandard)
	}
	v.checkWebhookSecret("webhook_sender", "the secret the service signs deliveries with", w.Secret, w.SecretEnv)
	if w.MaxAttempts < 1 {
		v.errf(at+"max_attempts", "required: how many attempts the service makes at most to deliver one event, the first included (at least 1), got %d", w.MaxAttempts)
	}
	v.positive(at+"attempt_timeout", w.AttemptTimeout, w.AttemptTimeout < 0)
	for i, d := range w.Backoff {
		v.positive(fmt.Sprintf("%sbackoff[%d]", at, i), d, d < 0)
	}
}
