// Package throttling is the client-side throttling contract (Google SRE
// book ch. 21 "Handling Overload", "Client-Side Throttling"): a target that
// declares adaptive throttling (policy.throttling) keeps counts of the calls
// it makes to its dependency and of those the dependency accepts, and
// rejects calls locally with probability max(0, (requests − K·accepts) /
// (requests + 1)), capped at its declared max_rejection. So a dependency
// that refuses work (429) for a sustained period stops receiving the
// offered load: the calls reaching it fall to about K × what it accepts
// (Eq. 21-1 counted over requests, as the book does; counted over the
// calls made, as failsafe-go does, K × the accepted share of the offered
// calls), plus the share the cap lets through (TH-01). Once it heals, calls reach
// it at the offered rate again within the declared recovery (TH-02).
//
// Both checks drive a steady load through the front proxy while the
// dependency proxy refuses, and count the calls and answers at the
// dependency; neither applies to a target that declares no throttling. A
// refusal is 429 without Retry-After, the "out of quota" Eq. 21-1 counts: a
// 503 says the dependency is unavailable, which a circuit breaker answers
// first.
//
// Suite returns the suite with a Config of rates, windows and tolerances;
// the zero Config means the documented defaults.
package throttling
