package certify

import (
	"slices"
	"testing"
)

// TestSpecWebhooks_ledgerKey: the header webhooks.effects.ledger names is
// the one the ledger counts deliveries' effects by, and it is journaled;
// the target's own ledger header stays the operations'.
func TestSpecWebhooks_ledgerKey(t *testing.T) {
	t.Parallel()
	tg := parseSpec(t, `kind: running
service: {url: "http://127.0.0.1:1"}
operations: [{name: pay, path: /pay}]
dependencies: [{name: processor, listen: "127.0.0.1:9"}]
effects: {ledger: {dependency: processor, key_header: X-Upstream-Key}}
webhooks:
  path: /hooks
  secret: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
  effects: {ledger: {dependency: processor, key_header: X-Event-Id}}
`)
	p, closeIdle := specWebhooks(tg, "http://127.0.0.1:1", nil)
	defer closeIdle()
	if !p.Ledger || p.LedgerKey != "X-Event-Id" {
		t.Errorf("specWebhooks: ledger %v by %q, want by X-Event-Id", p.Ledger, p.LedgerKey)
	}
	if got := journalHeaders(tg); !slices.Contains(got, "X-Event-Id") || !slices.Contains(got, "X-Upstream-Key") {
		t.Errorf("journalHeaders = %v, want both ledger headers", got)
	}
	if c := specConventions(tg); c.DependencyKey != "X-Upstream-Key" {
		t.Errorf("the operations' ledger header = %q, want X-Upstream-Key", c.DependencyKey)
	}
}
