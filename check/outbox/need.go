package outbox

import "github.com/resilcheck/resilcheck/check"

// needOutbox: the target publishes an event per effect to a broker
// resilcheck started, and its effects can be counted.
var needOutbox = check.Need{Name: "outbox",
	Doc: "the target declares that it publishes an event for each effect (outbox: subject) and how its effects are counted (effects)",
	Unmet: func(h *check.Harness) string {
		switch {
		case !h.Policy.Outbox.Declared():
			return "the target declares no outbox (outbox.subject)"
		case h.Probe == nil && h.NoLedger:
			return "the target declares no way to count its effects (effects)"
		}
		return ""
	}}

// needCrash: the harness can kill the service and start it again.
var needCrash = check.Need{Name: "crashable service",
	Doc: "resilcheck starts the service (kind process or reference), so it can kill it and start it again",
	Unmet: func(h *check.Harness) string {
		if h.Policy.Outbox.Crash == nil {
			return "resilcheck did not start the service, so it cannot kill and restart it (kind process or reference can)"
		}
		return ""
	}}
