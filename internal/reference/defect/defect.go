// Package defect names the ways the reference stack can be broken on purpose.
// Each defect breaks exactly one contract the way real services break it, so
// the defect matrix can prove every resilcheck check is able to fail.
package defect

import (
	"fmt"
	"slices"
	"strings"
)

// Name identifies one defect, e.g. "racy-idempotency".
type Name string

// The defects. Each constant's comment says what the broken component does.
const (
	NoIdempotency            Name = "no-idempotency"             // service: ignores Idempotency-Key, every request charges
	RacyIdempotency          Name = "racy-idempotency"           // service: check-then-act without a claim, concurrent copies all charge
	ReplayMismatch           Name = "replay-mismatch"            // service: same key, different payload replays the old response
	NoDownstreamKey          Name = "no-downstream-key"          // service: calls the processor without its idempotency key
	CrossTenantKeys          Name = "cross-tenant-keys"          // service: records scoped by key only, tenants share them
	RetryEveryTier           Name = "retry-every-tier"           // gateway: retries POSTs to the service too
	GatewayResendOnReset     Name = "gateway-resend-on-reset"    // gateway: re-sends a POST when its connection to the service fails
	RetryNonRetryable        Name = "retry-non-retryable"        // service: retries 4xx answers from the processor
	NoJitter                 Name = "no-jitter"                  // service: exponential backoff without jitter
	NoRetryBudget            Name = "no-retry-budget"            // service: no retry budget, no circuit breaker
	RetryCapPerFailureKind   Name = "retry-cap-per-failure-kind" // service: the attempt cap restarts when the failure changes kind
	IgnoreRetryAfter         Name = "ignore-retry-after"         // service: retries before the processor's Retry-After
	RetryAfterCapped         Name = "retry-after-capped"         // service: waits at most 1 s for the processor's Retry-After
	NoRetryAfterHeader       Name = "no-retry-after-header"      // gateway: 429 and 503 carry no Retry-After
	BadRetryAfter            Name = "bad-retry-after"            // gateway: emits "Retry-After: 1.5s"
	NoDeadlinePropagation    Name = "no-deadline-propagation"    // gateway and service: forward no budget downstream
	WorkAfterDeadline        Name = "work-after-deadline"        // service: keeps calling the processor after the budget ran out
	DeadlineOnHeadersOnly    Name = "deadline-on-headers-only"   // service: the budget bounds the processor's headers, not its body
	GRPCIgnoreDeadline       Name = "grpc-ignore-deadline"       // service: its gRPC face runs each call on a context of its own
	NoRateLimitHeaders       Name = "no-ratelimit-headers"       // gateway: omits RateLimit and X-RateLimit-* fields
	LyingRateLimitRemaining  Name = "lying-ratelimit-remaining"  // gateway: remaining says more than is left
	SharedRateLimitRemaining Name = "shared-ratelimit-remaining" // gateway: remaining counts every tenant's requests
	HedgeNoDelay             Name = "hedge-no-delay"             // service: sends the hedged copy at once, not after the delay
	HedgeMaxCopies           Name = "hedge-max-copies"           // service: sends more copies of a slow call than it declares
	HedgeNoBudget            Name = "hedge-no-budget"            // service: hedges with no budget, so a slow dependency gets twice the load
	HedgeLoserKept           Name = "hedge-loser-kept"           // service: never cancels the losing copies
	HedgeNewKey              Name = "hedge-new-key"              // service: gives each hedged copy a new idempotency key
	ThrottleNever            Name = "throttle-never"             // service: its throttler counts a refusal as an accept
	ThrottleStuck            Name = "throttle-stuck"             // service: rejects while its throttler's last rate is above 0
	WebhookNoDedupe          Name = "webhook-no-dedupe"          // service: records a webhook's effect on every delivery of the event
	WebhookAnySignature      Name = "webhook-any-signature"      // service: takes any webhook-signature value as valid
	WebhookUnsigned          Name = "webhook-unsigned"           // service: verifies a webhook only when it carries a signature
	WebhookNoTolerance       Name = "webhook-no-tolerance"       // service: does not bound the age of webhook-timestamp
	WebhookRawSecret         Name = "webhook-raw-secret"         // service: keys its HMAC with the whsec_ string, not its decoded bytes
	WebhookAnswerFirst       Name = "webhook-answer-first"       // service: answers a webhook 200 before it records the effect
	WebhookLastWriteWins     Name = "webhook-last-write-wins"    // service: applies an object's state from whichever event arrives last
	SenderNewID              Name = "sender-new-id"              // service: gives each attempt of a webhook a new webhook-id
	SenderUnsignedRetries    Name = "sender-unsigned-retries"    // service: signs a webhook's first attempt only
	SenderNoRetry            Name = "sender-no-retry"            // service: attempts a webhook once
	SenderNoBackoff          Name = "sender-no-backoff"          // service: retries a webhook at once
	SenderNoJitter           Name = "sender-no-jitter"           // service: waits exactly the backoff before a webhook retry
	SenderUnbounded          Name = "sender-unbounded"           // service: retries a webhook past its max attempts
	SenderFlushOnRecovery    Name = "sender-flush-on-recovery"   // service: sends every waiting webhook retry at the endpoint's first success
	SenderNoTimeout          Name = "sender-no-timeout"          // service: waits for a webhook endpoint's answer without end
	SenderIgnoreRetryAfter   Name = "sender-ignore-retry-after"  // service: retries a webhook before the endpoint's Retry-After
	SenderRetryGone          Name = "sender-retry-gone"          // service: retries a webhook the endpoint answered 410 Gone
	SenderFollowsRedirects   Name = "sender-follows-redirects"   // service: follows a webhook endpoint's redirect
	ConsumerAckFirst         Name = "consumer-ack-first"         // service: acks a queued payment before it charges
	ConsumerFreshKey         Name = "consumer-fresh-key"         // service: keys each delivery of a queued payment apart
	ConsumerNoDeadLetter     Name = "consumer-no-dead-letter"    // service: never dead-letters a message it cannot process
	ConsumerNoAck            Name = "consumer-no-ack"            // service: never acks a queued payment it charged
	ConsumerPoisonBlocks     Name = "consumer-poison-blocks"     // service: retries a message it cannot parse inside its one handler
	OutboxDualWrite          Name = "outbox-dual-write"          // service: publishes a payment's event after the commit, once, not through the outbox
	OutboxNewID              Name = "outbox-new-id"              // service: its relay gives each publish of an event a new id
	OutboxNoRelay            Name = "outbox-no-relay"            // service: writes events to its outbox and never publishes them
)

// Info describes a defect for listings and the defect matrix.
type Info struct {
	Name      Name
	Component string // "gateway" or "service"
	Contract  string // the suite that must catch it
	Breaks    string // one sentence: what goes wrong
}

var catalog = []Info{
	{NoIdempotency, "service", "idempotency", "ignores Idempotency-Key; every retry charges again"},
	{RacyIdempotency, "service", "idempotency", "checks for the key, then acts, with no claim or unique constraint; concurrent copies all charge"},
	{ReplayMismatch, "service", "idempotency", "a reused key with a different payload replays the old response instead of 422"},
	{NoDownstreamKey, "service", "idempotency", "calls the processor without an idempotency key, so its own retries can charge twice"},
	{CrossTenantKeys, "service", "idempotency", "scopes records by key alone; one tenant receives another's stored response"},
	{RetryEveryTier, "gateway", "retry-amplification", "the gateway retries POSTs as well, multiplying attempts per layer"},
	{GatewayResendOnReset, "gateway", "retry-amplification", "re-sends a POST up to twice when its connection to the service fails before an answer (nginx's proxy_next_upstream error non_idempotent, HAProxy's retry-on conn-failure), which a status code never triggers"},
	{RetryNonRetryable, "service", "retry-amplification", "retries 4xx answers such as 400 and 422"},
	{NoJitter, "service", "retry-amplification", "backs off exponentially without jitter, so retries move in lockstep"},
	{NoRetryBudget, "service", "retry-amplification", "has no retry budget and no circuit breaker, so an outage multiplies calls"},
	{RetryCapPerFailureKind, "service", "retry-amplification", "caps attempts per kind of failure, so a reset followed by 429s retries past the cap"},
	{IgnoreRetryAfter, "service", "retry-after", "retries before the dependency's Retry-After has passed"},
	{RetryAfterCapped, "service", "retry-after", "waits at most 1 s for the dependency's Retry-After (a retry library's maximum delay), so a longer one is cut short"},
	{NoRetryAfterHeader, "gateway", "retry-after", "sends 429 and 503 without Retry-After"},
	{BadRetryAfter, "gateway", "retry-after", `sends "Retry-After: 1.5s", which is not valid RFC 9110 syntax`},
	{NoDeadlinePropagation, "service", "deadlines", "forwards no deadline to its dependency"},
	{WorkAfterDeadline, "service", "deadlines", "keeps calling its dependency after the caller's budget ran out"},
	{DeadlineOnHeadersOnly, "service", "deadlines", "bounds the wait for its dependency's headers by the budget but not the body, so a trickling answer holds the call past the deadline"},
	{GRPCIgnoreDeadline, "service", "deadlines", "its gRPC face runs each call on a context of its own with the service's maximum budget, as a handler that starts its work from context.Background() does: the caller's grpc-timeout neither bounds the call nor reaches the processor, and a caller who leaves does not cancel it (the HTTP API is unaffected: certify it with --face grpc)"},
	{NoRateLimitHeaders, "gateway", "rate-limit-headers", "omits the RateLimit and X-RateLimit-* fields"},
	{LyingRateLimitRemaining, "gateway", "rate-limit-headers", "advertises more remaining quota than it enforces"},
	{SharedRateLimitRemaining, "gateway", "rate-limit-headers", "advertises a remaining quota that every tenant's requests use up, while it enforces each tenant's alone, so one tenant's traffic tells another to slow down"},
	{HedgeNoDelay, "service", "hedging", "sends the hedged copy together with the first (a hedging delay of 0), so every call reaches the processor twice"},
	{HedgeMaxCopies, "service", "hedging", "counts its copy cap as hedges after the first and adds one, so a slow call is sent 4 times where 2 copies are declared"},
	{HedgeNoBudget, "service", "hedging", "hedges with no budget, so when the processor is slow for everyone every call is sent twice and the overload doubles"},
	{HedgeLoserKept, "service", "hedging", "sends every copy on a context that only the deadline (and the attempt timeout) ends, so the losing copy runs on after the winner answered"},
	{HedgeNewKey, "service", "hedging", "gives each hedged copy an idempotency key of its own, so the processor charges once per copy"},
	{ThrottleNever, "service", "throttling", "feeds its adaptive throttler without a failure condition, so failsafe-go counts only errors as failures and every 429, an HTTP answer, as an accept: throttling never engages and a refusing processor receives the full load"},
	{ThrottleStuck, "service", "throttling", "rejects every call, without asking, while its adaptive throttler's RejectionRate() is above zero (a fast path reading the metric as the decision); failsafe-go recomputes that rate only when asked for a permit, so once throttling engages no call reaches the processor again, healed or not, while traffic flows"},
	{WebhookNoDedupe, "service", "webhooks", "records a webhook's effect without looking its webhook-id up, so an event delivered again (a lost 2xx, a concurrent copy) takes effect again"},
	{WebhookAnySignature, "service", "webhooks", "checks that webhook-signature is there but not what it says, so a forged delivery takes effect"},
	{WebhookUnsigned, "service", "webhooks", "verifies a delivery only when it carries webhook-signature, so an unsigned one takes effect"},
	{WebhookNoTolerance, "service", "webhooks", "verifies the signature but not the age of webhook-timestamp, so a captured delivery replayed later takes effect"},
	{WebhookRawSecret, "service", "webhooks", "keys its HMAC with the whsec_ secret as written instead of its base64-decoded bytes (as Stripe's scheme does), so it refuses every genuine delivery"},
	{WebhookAnswerFirst, "service", "webhooks", "answers a verified delivery 200 at once and records its effect 100 ms later from memory, so a crash in between loses the event: the provider, told it was delivered, never sends it again"},
	{WebhookLastWriteWins, "service", "webhooks", "applies the object state an event reports whatever the event's created time, so an earlier event delivered after a later one (a retry, a slow worker at the provider) rolls the object back"},
	{SenderNewID, "service", "webhook-sender", "draws a new webhook-id for every attempt of an event, so a receiver deduplicating by id takes a retried event twice"},
	{SenderUnsignedRetries, "service", "webhook-sender", "signs an event's first attempt only, so a receiver that verifies refuses every retry"},
	{SenderNoRetry, "service", "webhook-sender", "attempts each event once, so an event the endpoint failed to take (a 500, a reset) is lost"},
	{SenderNoBackoff, "service", "webhook-sender", "retries a failed delivery at once instead of after its declared backoff, hammering an endpoint that is failing"},
	{SenderNoJitter, "service", "webhook-sender", "waits exactly its backoff before each retry, so events that failed together (an endpoint's outage) are all retried at the same instant"},
	{SenderFlushOnRecovery, "service", "webhook-sender", "holds its retries while deliveries fail and, at the first success after three failed attempts in a row, sends every waiting retry at once, so an endpoint that comes back from an outage meets its whole backlog in one burst"},
	{SenderUnbounded, "service", "webhook-sender", "counts no attempts, so an event the endpoint keeps failing is retried past the declared max attempts"},
	{SenderNoTimeout, "service", "webhook-sender", "sends each attempt with no timeout, so an endpoint that accepts the connection and never answers holds the event for ever and it is never retried"},
	{SenderIgnoreRetryAfter, "service", "webhook-sender", "waits its own backoff after a 429 or 503, ignoring the endpoint's longer Retry-After"},
	{SenderRetryGone, "service", "webhook-sender", "takes 410 Gone for a failure like any other and retries, delivering to an endpoint that said it is gone for good"},
	{SenderFollowsRedirects, "service", "webhook-sender", "sends deliveries with net/http's default client, which follows a redirect: a 307 re-posts the signed event to wherever the Location points, and the event counts as delivered there"},
	{ConsumerAckFirst, "service", "queue", "acknowledges a queued payment as it arrives, before it charges, so a crash during the charge loses the payment: the broker never delivers it again"},
	{ConsumerFreshKey, "service", "queue", "keys a queued payment by its message id and delivery count, so each delivery of one message (a redelivery after a crash, a publisher's resend) is a payment of its own and charges again"},
	{OutboxDualWrite, "service", "outbox", "publishes a payment's event from the request path after the commit, once, instead of through the outbox's relay: an event the broker does not confirm, or a crash before the publish, loses it for good"},
	{OutboxNewID, "service", "outbox", "gives each publish of an event a fresh Nats-Msg-Id, so an event the relay publishes again after an unconfirmed publish is, to a consumer deduplicating by id, a second event"},
	{OutboxNoRelay, "service", "outbox", "writes each payment's event to its outbox and runs no relay, so no event is ever published"},
	{ConsumerNoAck, "service", "queue", "charges a queued payment but never acknowledges its message, so the broker delivers it again every ack_wait until max_deliver and then gives up on it"},
	{ConsumerPoisonBlocks, "service", "queue", "retries a message it cannot parse inside its handler, 200, 400 and 800 ms apart, before it dead-letters it, and its handler is the consumer's only one: every message behind the poison one waits 1.4 s, longer than the ack_wait"},
	{ConsumerNoDeadLetter, "service", "queue", "asks for a message it cannot parse again on every delivery and never dead-letters it, so the broker gives up on it silently after max_deliver and it is lost"},
}

// All returns every defect of the stack (gateway and service) in a stable
// order; Client lists the reference SDK's.
func All() []Info { return slices.Clone(catalog) }

// Lookup returns the description of name and whether it is a known defect.
func Lookup(name Name) (Info, bool) {
	i := slices.IndexFunc(catalog, func(in Info) bool { return in.Name == name })
	if i < 0 {
		return Info{}, false
	}
	return catalog[i], true
}

// Set is a set of enabled defects. The zero value (nil) enables none and is
// safe to query; a Set must not be modified once components are running.
type Set map[Name]bool

// Has reports whether d is enabled.
func (s Set) Has(d Name) bool { return s[d] }

// Names returns the enabled defects sorted by name.
func (s Set) Names() []string {
	out := make([]string, 0, len(s))
	for n, on := range s {
		if on {
			out = append(out, string(n))
		}
	}
	slices.Sort(out)
	return out
}

// UnknownError reports defect names that are not in the catalog searched.
type UnknownError struct {
	Names []string
	valid []Info // the catalog searched
}

func (e *UnknownError) Error() string {
	searched := e.valid
	if searched == nil {
		searched = All() // the zero value searched the stack's
	}
	valid := make([]string, len(searched))
	for i, in := range searched {
		valid[i] = string(in.Name)
	}
	msg := fmt.Sprintf("defect: unknown %s %s; valid defects: %s",
		plural(len(e.Names), "defect", "defects"), strings.Join(e.Names, ", "), strings.Join(valid, ", "))
	for _, n := range e.Names {
		if _, ok := LookupClient(Name(n)); ok && !slices.ContainsFunc(searched, func(in Info) bool { return in.Name == Name(n) }) {
			msg += fmt.Sprintf(" (%s is a defect of the reference SDK: switch it on with `resilcheck reference client --defect`)", n)
		}
	}
	return msg
}

// Parse turns names into a Set of the stack's defects. Names may also be
// comma-separated. An unknown name yields an *UnknownError that lists the
// valid ones.
func Parse(names ...string) (Set, error) {
	return parse(names, catalog)
}

func parse(names []string, valid []Info) (Set, error) {
	set := Set{}
	var unknown []string
	for _, arg := range names {
		for n := range strings.SplitSeq(arg, ",") {
			n = strings.TrimSpace(n)
			if n == "" {
				continue
			}
			if !slices.ContainsFunc(valid, func(in Info) bool { return in.Name == Name(n) }) {
				unknown = append(unknown, n)
				continue
			}
			set[Name(n)] = true
		}
	}
	if len(unknown) > 0 {
		return nil, &UnknownError{Names: unknown, valid: valid}
	}
	return set, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
