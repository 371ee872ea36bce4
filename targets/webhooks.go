package targets

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Webhooks says the service receives webhooks: resilcheck plays the provider
// and delivers signed events to Path, as the webhooks suite's checks need.
// The zero value declares no receiver.
type Webhooks struct {
	// Path is where deliveries are POSTed, under service.url; empty = the
	// service receives no webhooks.
	Path string `yaml:"path"`
	// Scheme names how deliveries are signed: "standard" (Standard Webhooks
	// 1.0.0: webhook-id, webhook-timestamp, webhook-signature) is the one
	// supported; empty = standard.
	Scheme WebhookScheme `yaml:"scheme"`
	// Secret is the signing secret, whsec_ and the base64 of 24 to 64 bytes;
	// exactly one of Secret and SecretEnv is required.
	Secret string `yaml:"secret"`
	// SecretEnv names the environment variable that holds the secret, so
	// the spec need not.
	SecretEnv string `yaml:"secret_env"`
	// Body is the event delivered, a text/template over RequestValues
	// (.Key is the event id, .Amount a drawn amount); empty = a small JSON
	// event of type payment.settled carrying both.
	Body string `yaml:"body"`
	// Effects says how an event's effect is counted: a probe read with
	// .Key the event id, and/or the ledger of effectful calls the receiver
	// makes; zero = the target's effects.
	Effects Effects `yaml:"effects"`
	// Ordering declares two events about one object and how its state is
	// read, for WH-09; zero = WH-09 is not applicable.
	Ordering WebhookOrdering `yaml:"ordering"`
}

// WebhookScheme names a webhook signing scheme.
type WebhookScheme string

// SchemeStandard is Standard Webhooks 1.0.0 (HMAC-SHA256, "v1,").
const SchemeStandard WebhookScheme = "standard"

// Declared reports whether the spec declares a webhook receiver.
func (w Webhooks) Declared() bool { return w.Path != "" }

// Key returns the HMAC key deliveries are signed with: the decoded bytes of
// the whsec_ secret, read from SecretEnv when set.
func (w Webhooks) Key() ([]byte, error) { return webhookKey("webhooks", w.Secret, w.SecretEnv) }

// webhookKey decodes the secret of section: secret, or the value of the
// environment variable env when it is named.
func webhookKey(section, secret, env string) ([]byte, error) {
	if env != "" {
		v, ok := os.LookupEnv(env)
		if !ok {
			return nil, fmt.Errorf("targets: %s: environment variable %s is not set", section, env)
		}
		secret = v
	}
	k, err := DecodeWebhookSecret(secret)
	if err != nil {
		return nil, fmt.Errorf("targets: %s: %w", section, err)
	}
	return k, nil
}

// errSecret is the shape every webhook secret problem names.
var errSecret = errors.New("a Standard Webhooks secret is whsec_ and the base64 of 24 to 64 random bytes")

// DecodeWebhookSecret decodes a Standard Webhooks secret: "whsec_" and the
// standard base64 of 24 to 64 bytes (Standard Webhooks 1.0.0, "Signature
// scheme"; the libraries accept 24 to 64).
func DecodeWebhookSecret(s string) ([]byte, error) {
	b64, ok := strings.CutPrefix(s, "whsec_")
	if !ok {
		return nil, fmt.Errorf("secret does not start with whsec_: %w", errSecret)
	}
	k, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("secret is not base64 after whsec_ (%v): %w", err, errSecret)
	}
	if len(k) < 24 || len(k) > 64 {
		return nil, fmt.Errorf("secret decodes to %d bytes: %w", len(k), errSecret)
	}
	return k, nil
}
