// Package ratelimit is the rate-limit header contract: the RateLimit and
// RateLimit-Policy fields (draft-ietf-httpapi-ratelimit-headers-10, and the
// older drafts where accepted) or the legacy X-RateLimit-* fields are
// well-formed, consistent across responses and honest about the quota the
// target enforces. Its checks (RL-*, HS-05) drive declared rate-limited
// routes with sequential requests and paced load, with RL-07p exploring
// interleavings of tenants.
//
// Suite returns the suite with a Config of load caps and slack; the zero
// Config means the documented defaults.
package ratelimit
