// Package builtin lists resilcheck's built-in suites, one per contract, in
// the order reports list them. The list is explicit: nothing registers
// itself: a build of resilcheck runs these, and the suites its main package
// adds (cli.WithSuites, certify.Config.Custom).
package builtin

import (
	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/check/amplification"
	"github.com/resilcheck/resilcheck/check/deadlines"
	"github.com/resilcheck/resilcheck/check/hedging"
	"github.com/resilcheck/resilcheck/check/idempotency"
	"github.com/resilcheck/resilcheck/check/outbox"
	"github.com/resilcheck/resilcheck/check/queue"
	"github.com/resilcheck/resilcheck/check/ratelimit"
	"github.com/resilcheck/resilcheck/check/retryafter"
	"github.com/resilcheck/resilcheck/check/throttling"
	"github.com/resilcheck/resilcheck/check/webhooks"
	"github.com/resilcheck/resilcheck/check/webhooksender"
)

// Suites returns the built-in service suites with their default settings.
func Suites() []check.Suite {
	return []check.Suite{
		idempotency.Suite(),
		amplification.Suite(amplification.Config{}),
		retryafter.Suite(retryafter.Config{}),
		deadlines.Suite(deadlines.Config{}),
		ratelimit.Suite(ratelimit.Config{}),
		hedging.Suite(hedging.Config{}),
		throttling.Suite(throttling.Config{}),
		webhooks.Suite(webhooks.Config{}),
		webhooksender.Suite(webhooksender.Config{}),
		queue.Suite(queue.Config{}),
		outbox.Suite(outbox.Config{}),
	}
}
