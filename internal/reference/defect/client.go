package defect

import "slices"

// The reference SDK's defects (package internal/reference/client): each breaks one
// contract of a retrying client the way real clients break it. They are
// switched on in the SDK (client.WithDefects), not in the stack, and the
// client suite (CL-*) catches them; see target.ClientMatrix.
const (
	ClientNoAttemptCap     Name = "client-no-attempt-cap"      // retries until its deadline, whatever its attempt cap
	ClientIgnoreRetryAfter Name = "client-ignore-retry-after"  // waits its own backoff, never the server's Retry-After
	ClientWaitPastDeadline Name = "client-wait-past-deadline"  // waits out a Retry-After longer than what is left of its deadline
	ClientNewKeyPerAttempt Name = "client-new-key-per-attempt" // draws a fresh idempotency key for every attempt
	ClientRetryAny4xx      Name = "client-retry-any-4xx"       // retries 400 and 422 as if they were transient
	ClientConstantBackoff  Name = "client-constant-backoff"    // a constant interval with jitter: waits never grow
	ClientNoJitter         Name = "client-no-jitter"           // exponential waits without jitter
	ClientFalseSuccess     Name = "client-false-success"       // reports success when its retries ran out
	Client429Final         Name = "client-429-final"           // takes a 429 as a final answer
	ClientStaleBudget      Name = "client-stale-budget"        // sends its whole deadline as the budget on every attempt
	ClientHedgeEarly       Name = "client-hedge-early"         // hedges after a third of its declared delay
	ClientHedgeMaxCopies   Name = "client-hedge-max-copies"    // sends more copies of a slow attempt than it declares
	ClientHedgeLoserKept   Name = "client-hedge-loser-kept"    // never cancels the losing copies
	ClientHedgeNewKey      Name = "client-hedge-new-key"       // gives each hedged copy a new idempotency key
)

var clientCatalog = []Info{
	{ClientNoAttemptCap, "client", "client", "retries until its deadline runs out, ignoring its own attempt cap"},
	{ClientIgnoreRetryAfter, "client", "client", "retries on its own backoff before the server's Retry-After, in any form"},
	{ClientWaitPastDeadline, "client", "client", "waits out a Retry-After longer than what is left of its deadline (up to MaxRetryAfter) instead of giving up"},
	{ClientNewKeyPerAttempt, "client", "client", "sends a new idempotency key on every attempt, so a retried POST is a new operation"},
	{ClientRetryAny4xx, "client", "client", "retries 400 and 422, which no retry can fix"},
	{ClientConstantBackoff, "client", "client", "waits a constant interval with jitter (every wait in [B/2, B], B the second retry's bound), so waits never grow"},
	{ClientNoJitter, "client", "client", "waits exactly base·2^n, so clients failing together retry together"},
	{ClientFalseSuccess, "client", "client", "reports success when its attempts ran out without one succeeding"},
	{Client429Final, "client", "client", "treats 429 Too Many Requests as final and never retries it"},
	{ClientStaleBudget, "client", "client", "sends its whole deadline in X-Request-Timeout-Ms on every attempt instead of what is left"},
	{ClientHedgeEarly, "client", "client", "hedges after a third of the delay it declares (100 ms for 300 ms), so attempts a little slow are copied early"},
	{ClientHedgeMaxCopies, "client", "client", "counts its copy cap as hedges after the first and adds one, so a slow attempt goes out 4 times where 2 copies are declared"},
	{ClientHedgeLoserKept, "client", "client", "sends every copy on a context only the attempt's deadline ends, so the losers run on after one is answered"},
	{ClientHedgeNewKey, "client", "client", "gives each hedged copy an idempotency key of its own, so the server may act once per copy"},
}

// Client returns the reference SDK's defects in a stable order.
func Client() []Info { return slices.Clone(clientCatalog) }

// LookupClient returns the description of the SDK defect name.
func LookupClient(name Name) (Info, bool) {
	i := slices.IndexFunc(clientCatalog, func(in Info) bool { return in.Name == name })
	if i < 0 {
		return Info{}, false
	}
	return clientCatalog[i], true
}

// ParseClient turns names (comma-separated too) into a Set of SDK defects;
// an unknown name yields an *UnknownError.
func ParseClient(names ...string) (Set, error) {
	return parse(names, clientCatalog)
}
