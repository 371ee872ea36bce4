// Package check is the kit every resilcheck check is written against, the
// built-in ones and a user's own: a Check (ID, level, public source, needs
// and a Run function), the Case a run hands it (requests sent as a tenant,
// fault rules placed on a proxy for this case only, the case's window of
// the journal, effect counting, draws from the run's seed, the target's
// declared policy and the time slack), the verdict constructors Pass, Fail,
// Inconclusive and NotApplicable, and the runner.
//
// A check judges the target from the responses and the shared journal
// alone: it never looks inside the target. Checks come in suites, one per
// contract (packages idempotency, amplification, retryafter, deadlines,
// ratelimit, hedging, throttling and webhooks below this one; builtin lists
// them); a Suite may carry its own settings, which its checks read with
// SuiteConfig.
//
//	h := &check.Harness{TargetURL: front, Front: fp, Dependency: dp, Journal: j, Operation: op, Seed: seed, Suites: suites}
//	checks, err := check.Select(suites, "idempotency")
//	results := check.Run(ctx, h, checks, progress)
//
// CREATING_CHECKS.md says how to write one; examples/customcheck is a
// module that adds one to resilcheck.
package check
