// Package suites holds resilcheck's checks, grouped in suites, one per
// resilience contract. A check sends requests through the front proxy, makes
// things go wrong with fault rules on either proxy, and judges the target
// from the responses and the shared journal alone: it never looks inside the
// target.
//
// The registry is closed: a check exists because its suite lists it, with
// its ID, level, public source and needs; the runner builds each check's
// Case from its ID. Catalogue and WriteCatalogue render the same lists for
// `resilcheck checks` and docs/checks.md. CREATING_CHECKS.md says how to add
// one.
//
//	h := &suites.Harness{TargetURL: front, Front: fp, Dependency: dp, Journal: j, Operation: op, Seed: seed}
//	checks, err := suites.Select("idempotency")
//	results := suites.Run(ctx, h, checks, progress)
package suites
