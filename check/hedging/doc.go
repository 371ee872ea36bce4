// Package hedging is the hedged-request contract: a target that hedges its
// dependency calls ("The Tail at Scale", Dean & Barroso, CACM 2013; gRFC A6
// hedgingPolicy) sends a copy only once a call has been outstanding for the
// declared delay, no more copies than it declares, within a budget when the
// dependency is slow for everyone, cancels the losers once one copy
// succeeds, and never makes a second effect: every copy of a write carries
// the same idempotency key. Its checks are HD-01 to HD-05, with HD-01p
// exploring latencies and refusals; HD-04 and HD-05 judge every target
// with a dependency that sends copies (they hold for every hedging
// target), the others one that declares policy.hedging.
//
// Suite returns the suite with a Config of holds, load and slack; the zero
// Config means the documented defaults.
package hedging
