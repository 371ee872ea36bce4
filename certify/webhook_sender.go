package certify

import (
	"slices"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/targets"
)

// endpointOptions adapts the dependency d to the webhook endpoint when the
// spec's webhook_sender names it: its proxy forwards to a sink of its own
// and journals as the webhook side, so its deliveries are no dependency's
// calls. It returns the upstream and the proxy options, or upstream and
// nil for any other dependency.
func (e *environment) endpointOptions(d targets.Dependency, upstream string) (string, []faults.Option, error) {
	if !e.spec.WebhookSender.Declared() || d.Name != e.spec.WebhookSender.Endpoint {
		return upstream, nil, nil
	}
	s, err := startSink()
	if err != nil {
		return "", nil, err
	}
	e.sink = s
	e.closers = append(e.closers, s.close)
	return s.url, []faults.Option{faults.WithSide(check.WebhookSenderSide)}, nil
}

// specWebhookSender adapts the spec's webhook_sender section to the
// harness of the copy in env: its endpoint proxy and sink. The zero policy
// when the spec declares no sender.
func specWebhookSender(t *targets.Target, env *environment) check.WebhookSenderPolicy {
	w := t.WebhookSender
	if !w.Declared() || env.webhook == nil {
		return check.WebhookSenderPolicy{}
	}
	key, _ := w.Key() // validation decoded it; no key (the variable unset since) makes the checks not applicable
	p := check.WebhookSenderPolicy{Endpoint: env.webhook, Scheme: string(w.Scheme), Key: key,
		MaxAttempts: w.MaxAttempts, Backoff: w.Backoff, AttemptTimeout: w.AttemptTimeout, Body: env.sink.body}
	if i := slices.IndexFunc(t.Operations, func(o targets.Operation) bool { return o.Name == w.Trigger }); i >= 0 {
		op := withEffect(t, adaptOperation(t, t.Operations[i]))
		p.Trigger = &op
	}
	return p
}
