// Package retryafter is the Retry-After contract (RFC 9110 §10.2.3): the
// target's own 429 and 503 carry a valid Retry-After that tells the truth,
// and the target waits out its dependency's Retry-After, in every form, and
// does not call again before it. Its checks are HS-01..HS-10, RL-09 and
// RL-10, with HS-08p exploring values, statuses and budgets.
//
// Suite returns the suite with a Config of budgets and slack; the zero
// Config means the documented defaults.
package retryafter
