// Package amplification is the retry-amplification contract: when the
// target's dependency fails, how many calls the target sends it per request,
// whether a retry budget and a breaker hold in an outage, and whether its
// backoff grows and is jittered. Its checks (RB-*, BO-*, HS-13 for the key
// forwarded on a retry, HS-14) fail the
// dependency through the dependency proxy and count attempts in the journal,
// judged against the target's declared retry policy or, undeclared, what the
// SRE book and gRFC A6 hold for every policy.
//
// Suite returns the suite with a Config of sampling limits and floors; the
// zero Config means the documented defaults.
package amplification
