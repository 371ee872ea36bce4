package targets

import (
	"strings"
	"testing"
	"time"
)

// senderBase is a running target with a ledger dependency and an endpoint
// dependency resilcheck answers at.
const senderBase = "service: {url: http://127.0.0.1:1}\noperations: [{name: pay, path: /pay}]\n" +
	"dependencies: [{name: processor, listen: 127.0.0.1:9091}, {name: merchant, listen: 127.0.0.1:9092}]\n" +
	"effects: {ledger: {dependency: processor}}\n"

// TestParse_webhookSender: a sender spec parses as written.
func TestParse_webhookSender(t *testing.T) {
	t.Parallel()
	src := senderBase + "webhook_sender:\n  endpoint: merchant\n  trigger: pay\n  secret: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n  max_attempts: 5\n  backoff: [1s, 5s]\n  attempt_timeout: 15s\n"
	tg, err := Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	w := tg.WebhookSender
	if !w.Declared() || w.Trigger != "pay" || w.MaxAttempts != 5 || len(w.Backoff) != 2 || w.Backoff[1] != 5*time.Second || w.AttemptTimeout != 15*time.Second {
		t.Errorf("webhook_sender = %+v", w)
	}
	if k, err := w.Key(); err != nil || len(k) != 24 {
		t.Errorf("Key() = %d bytes, %v", len(k), err)
	}
}

// TestValidate_webhookSender: each way the section can be wrong is named
// at its field.
func TestValidate_webhookSender(t *testing.T) {
	t.Parallel()
	const ok = "  secret: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n  max_attempts: 3\n"
	for _, tc := range []struct {
		name, deps, section, want string
	}{
		{"endpoint with an upstream", "dependencies: [{name: processor, listen: 127.0.0.1:9091}, {name: merchant, listen: 127.0.0.1:9092, upstream: 'http://127.0.0.1:7'}]\n",
			"  endpoint: merchant\n" + ok, "webhook_sender.endpoint: dependency \"merchant\" has an upstream"},
		{"endpoint is the ledger", "", "  endpoint: processor\n" + ok, "is the effects ledger"},
		{"no endpoint", "", "  max_attempts: 3\n", "webhook_sender.endpoint: required"},
		{"no secret", "", "  endpoint: merchant\n  max_attempts: 3\n", "webhook_sender.secret: required"},
		{"two secrets", "", "  endpoint: merchant\n  secret_env: X\n" + ok, "set secret or secret_env, not both"},
		{"unknown scheme", "", "  endpoint: merchant\n  scheme: stripe\n" + ok, "unknown webhook scheme \"stripe\""},
		{"unset variable", "", "  endpoint: merchant\n  secret_env: RESILCHECK_TEST_SENDER_UNSET\n  max_attempts: 3\n", "RESILCHECK_TEST_SENDER_UNSET is not set"},
	} {
		src := senderBase
		if tc.deps != "" {
			src = strings.Replace(src, "dependencies: [{name: processor, listen: 127.0.0.1:9091}, {name: merchant, listen: 127.0.0.1:9092}]\n", tc.deps, 1)
		}
		_, err := Parse("t.yaml", []byte(src+"webhook_sender:\n"+tc.section))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Parse error = %v; want one saying %q", tc.name, err, tc.want)
		}
	}
}
