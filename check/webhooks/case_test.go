package webhooks

import (
	"testing"

	"github.com/resilcheck/resilcheck/check"
)

// TestBegin_ledgerKey: a case counts the ledger by the receiver's own key
// header when webhooks.effects names one, on a copy of the harness.
func TestBegin_ledgerKey(t *testing.T) {
	t.Parallel()
	h := &check.Harness{Conventions: check.Conventions{DependencyKey: "X-Upstream-Key"}}
	h.Policy.Webhooks = check.WebhookPolicy{Path: "/hooks", Ledger: true, LedgerKey: "X-Event-Id"}
	w := begin(&check.Case{Harness: h})
	if got := w.Harness.Conventions.DependencyKeyName(); got != "X-Event-Id" {
		t.Errorf("the case's ledger counts by %q, want X-Event-Id", got)
	}
	if h.Conventions.DependencyKey != "X-Upstream-Key" {
		t.Errorf("begin changed the run's harness: %q", h.Conventions.DependencyKey)
	}
	h.Policy.Webhooks.LedgerKey = ""
	if got := begin(&check.Case{Harness: h}).Harness.Conventions.DependencyKeyName(); got != "X-Upstream-Key" {
		t.Errorf("without a key of its own the case counts by %q, want the target's X-Upstream-Key", got)
	}
}
