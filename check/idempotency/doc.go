// Package idempotency is the duplicate-side-effects contract: if an answer
// is lost and the client retries, or copies of one request race, the effect
// is made once. Its checks (IK-*) lose answers after the target committed, race copies, change
// a payload under a key, mix tenants, and explore random sequences of these
// (IK-17p), judged against the IETF Idempotency-Key draft.
//
// Suite returns the suite; it has no settings of its own beyond the
// target's conventions (key header and format, profile, tenancy).
package idempotency
