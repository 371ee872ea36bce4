// Package suites holds resilcheck's checks, grouped in suites, one per
// resilience contract. A check sends requests through the front proxy, makes
// things go wrong with fault rules on either proxy, and judges the target
// from the responses and the shared journal alone: it never looks inside the
// target.
//
//	h := suites.NewHarness(env)
//	results := suites.Run(ctx, h, suites.Select("idempotency"), progress)
package suites
