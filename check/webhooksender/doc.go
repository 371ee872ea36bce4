// Package webhooksender is the webhook sender contract: a target that
// delivers Standard Webhooks 1.0.0 events keeps one webhook-id and a valid
// signature on every attempt of an event, retries a failed delivery after
// at least its declared backoff and no more often than its declared
// attempts, waits out a Retry-After, stops at 410 Gone, and spreads the
// retries of events that failed together. resilcheck plays the receiving
// endpoint behind a proxy (journal side "webhook") and answers deliveries
// with the failures. Its checks are WS-01 to WS-10 and their variants;
// each needs the spec's webhook_sender section (check.WebhookSenderPolicy).
//
// It is a package of its own rather than a part of package webhooks: the
// receiver suite drives the target as a provider, this one waits on it as
// an endpoint; they share the signing code (webhooks.Sign) and nothing else.
package webhooksender
