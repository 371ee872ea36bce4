package targets

import "time"

// WebhookSender says the service sends webhooks: when an operation succeeds
// (a payment settles) it delivers a Standard Webhooks-signed event to an
// endpoint, and resilcheck plays that endpoint behind a proxy of its own,
// as the webhook-sender suite's checks need. The zero value declares no
// sender.
type WebhookSender struct {
	// Endpoint names the dependency the service delivers events to: the
	// service is told its URL as any dependency's ({{.Dependencies.NAME}}
	// in process.env), and resilcheck answers there itself, behind a proxy
	// journaled as the "webhook" side. Empty = the service sends none.
	Endpoint string `yaml:"endpoint"`
	// Trigger names the operation whose success emits exactly one event;
	// empty = the first operation.
	Trigger string `yaml:"trigger"`
	// Scheme names how deliveries are signed: "standard" (Standard
	// Webhooks 1.0.0) is the one supported; empty = standard.
	Scheme WebhookScheme `yaml:"scheme"`
	// Secret is the signing secret, whsec_ and the base64 of 24 to 64
	// bytes; exactly one of Secret and SecretEnv is required.
	Secret string `yaml:"secret"`
	// SecretEnv names the environment variable that holds the secret.
	SecretEnv string `yaml:"secret_env"`
	// MaxAttempts is how many attempts, the first included, the service
	// makes at most to deliver one event; required, at least 1.
	MaxAttempts int `yaml:"max_attempts"`
	// Backoff is the least wait before each retry: Backoff[i] between
	// attempt i+1 and i+2, the last repeated for later ones; jitter may
	// only lengthen a wait. Empty = no wait is declared (0).
	Backoff []time.Duration `yaml:"backoff"`
	// AttemptTimeout is how long the service waits for the endpoint's
	// answer before it abandons an attempt (Standard Webhooks recommends
	// 15 to 30 s); 0 = not declared, and the timeout is not judged.
	AttemptTimeout time.Duration `yaml:"attempt_timeout"`
}

// Declared reports whether the spec declares a webhook sender.
func (w WebhookSender) Declared() bool { return w.Endpoint != "" }

// Key returns the HMAC key deliveries are signed with: the decoded bytes of
// the whsec_ secret, read from SecretEnv when set.
func (w WebhookSender) Key() ([]byte, error) {
	return webhookKey("webhook_sender", w.Secret, w.SecretEnv)
}
