package queue

import "github.com/resilcheck/resilcheck/check"

// needConsumer: the target consumes a queue resilcheck publishes to, and
// its effects can be counted.
var needConsumer = check.Need{Name: "queue consumer",
	Doc: "the target declares that it consumes a queue (queue_consumer: subject) and how its effects are counted (effects)",
	Unmet: func(h *check.Harness) string {
		switch {
		case !h.Policy.Queue.Declared():
			return "the target declares no queue consumer (queue_consumer.subject)"
		case h.Probe == nil && h.NoLedger:
			return "the target declares no way to count a message's effect (effects)"
		}
		return ""
	}}

// needCrash: the harness can kill the consumer and start it again.
var needCrash = check.Need{Name: "crashable consumer",
	Doc: "resilcheck starts the consumer (kind process or reference), so it can kill it and start it again",
	Unmet: func(h *check.Harness) string {
		if h.Policy.Queue.Crash == nil {
			return "resilcheck did not start the consumer, so it cannot kill and restart it (kind process or reference can)"
		}
		return ""
	}}

// needDeadLetter: the target declares where it dead-letters a message and
// after how many deliveries.
var needDeadLetter = check.Need{Name: "dead-letter subject",
	Doc: "the target declares where it dead-letters a message it cannot process, and after how many deliveries (queue_consumer: dead_letter, max_deliver)",
	Unmet: func(h *check.Harness) string {
		p := h.Policy.Queue
		if p.DeadLetter == "" || p.MaxDeliver < 1 {
			return "the target declares no dead-letter subject and deliveries (queue_consumer.dead_letter, max_deliver)"
		}
		return ""
	}}
