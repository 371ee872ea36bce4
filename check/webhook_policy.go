package check

import "context"

// WebhookPolicy is how the target receives webhooks (the spec's webhooks
// section): where a provider delivers events, the secret they are signed
// with, and how an event's effect is counted. The zero value declares no
// receiver.
type WebhookPolicy struct {
	// Path is where deliveries are POSTed, under the target URL; "" = the
	// target receives no webhooks.
	Path string
	// Scheme names the signing scheme: "standard" (Standard Webhooks 1.0.0)
	// is the one the harness speaks.
	Scheme string
	// Key is the HMAC key: the decoded bytes of the whsec_ secret.
	Key []byte
	// Body renders the event delivered for v (v.Key is the event id);
	// nil means a small JSON event carrying v.Amount.
	Body func(v Values) ([]byte, error)
	// Probe reads the target's count of the effects of event v.Key; nil
	// means the effects are counted as the target's operations' are.
	Probe func(ctx context.Context, v Values) (int, error)
	// Ledger says the effect is counted at the dependency ledger (the
	// effectful calls the receiver forwards, keyed by the key it forwards).
	Ledger bool
	// LedgerKey is the header the receiver forwards an event's key in, by
	// which the ledger tells effects apart; "" = the target's
	// (Conventions.DependencyKey).
	LedgerKey string
	// Crash kills the receiver at once and starts it again, returning
	// once it is healthy (launch.Running.CrashFunc); nil = the receiver
	// cannot be crashed here.
	Crash func(ctx context.Context) error
	// Ordering is WH-09's two events about one object and the reader of
	// its state; nil = not declared, and WH-09 is not applicable.
	Ordering *WebhookOrdering
}

// WebhookOrdering is two events about one object, v.Key, and how to read
// its state (the spec's webhooks.ordering).
type WebhookOrdering struct {
	// Earlier and Later render the two events' bodies for object v.Key.
	Earlier, Later func(v Values) ([]byte, error)
	// State reads object v.Key's state, compacted JSON, from the service.
	State func(ctx context.Context, v Values) (string, error)
}

// Declared reports whether the target declares a webhook receiver.
func (p WebhookPolicy) Declared() bool { return p.Path != "" }
