package webhooks

import (
	"fmt"

	"github.com/resilcheck/resilcheck/check"
)

// needReceiver: the target declares a webhook receiver and a way to count
// an event's effects.
var needReceiver = check.Need{Name: "webhook receiver",
	Doc: "the target declares that it receives webhooks (webhooks: path, secret) and how an event's effect is counted",
	Unmet: func(h *check.Harness) string {
		p := h.Policy.Webhooks
		switch {
		case !p.Declared():
			return "the target declares no webhook receiver (webhooks.path)"
		case p.Scheme != "" && p.Scheme != SchemeStandard:
			return fmt.Sprintf("the target's webhook scheme %q is not one the harness speaks (%s)", p.Scheme, SchemeStandard)
		case len(p.Key) == 0:
			return "the target's webhook secret could not be read (webhooks.secret, webhooks.secret_env)"
		case p.Probe == nil && !p.Ledger:
			return "the target declares no way to count an event's effect (webhooks.effects, or effects)"
		}
		return ""
	}}

// needCrash: the harness can kill the receiver and start it again.
var needCrash = check.Need{Name: "crashable receiver",
	Doc: "resilcheck starts the receiver (kind process or reference), so it can kill it and start it again",
	Unmet: func(h *check.Harness) string {
		if h.Policy.Webhooks.Crash == nil {
			return "resilcheck did not start the receiver, so it cannot kill and restart it (kind process or reference can)"
		}
		return ""
	}}

// needOrdering: the target declares two events about one object and how
// to read its state.
var needOrdering = check.Need{Name: "ordered webhook events",
	Doc: "the target declares an earlier and a later event about one object and how its state is read (webhooks.ordering)",
	Unmet: func(h *check.Harness) string {
		if h.Policy.Webhooks.Ordering == nil {
			return "the target declares no ordered events (webhooks.ordering: earlier, later, state)"
		}
		return ""
	}}

// SchemeStandard names the Standard Webhooks 1.0.0 signing scheme.
const SchemeStandard = "standard"
