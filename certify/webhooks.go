package certify

import (
	"crypto/tls"
	"reflect"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/targets"
)

// specWebhooks adapts the spec's webhooks section to the harness, its probe
// reading the service at base (over TLS with tlsConfig, when not nil):
// webhooks.effects, or the target's effects
// when that is zero. The zero policy when the spec declares no receiver;
// closeIdle as specProbe's.
func specWebhooks(t *targets.Target, base string, tlsConfig *tls.Config) (p check.WebhookPolicy, closeIdle func()) {
	w := t.Webhooks
	if !w.Declared() {
		return check.WebhookPolicy{}, func() {}
	}
	key, _ := w.Key() // validation decoded it; no key (the variable unset since) makes the checks not applicable
	effects := w.Effects
	if reflect.ValueOf(effects).IsZero() {
		effects = t.Effects
	}
	probe, closeIdle := specProbe(t, effects.Probe, base, tlsConfig)
	p = check.WebhookPolicy{Path: w.Path, Scheme: string(w.Scheme), Key: key, Probe: probe,
		Ledger: effects.Ledger.Dependency != "", LedgerKey: effects.Ledger.KeyHeader}
	if w.Body != "" {
		p.Body = renderBody(w.Body)
	}
	if o := w.Ordering; o.Declared() {
		state, closeState := specState(t, o.State, base, tlsConfig)
		p.Ordering = &check.WebhookOrdering{Earlier: renderBody(o.Earlier), Later: renderBody(o.Later), State: state}
		closeProbe := closeIdle
		closeIdle = func() { closeProbe(); closeState() }
	}
	return p, closeIdle
}

// renderBody renders the body template tpl for one case's values.
func renderBody(tpl string) func(check.Values) ([]byte, error) {
	return func(v check.Values) ([]byte, error) {
		s, err := targets.Render(tpl, targets.RequestValues{Key: v.Key, Amount: v.Amount, Tenant: v.Tenant, Seq: v.Seq})
		return []byte(s), err
	}
}
