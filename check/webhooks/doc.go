// Package webhooks is the webhook receiver contract: a target that receives
// webhooks signed by the Standard Webhooks 1.0.0 scheme makes one effect per
// event id however often, however concurrently and after whatever lost
// answer the event is delivered again, and refuses a delivery whose
// signature is bad or missing or whose timestamp is outside the tolerance,
// with no effect; a 2xx comes only once the effect is durable, and an event
// delivered after a later one about the same object leaves the later
// one's state. Its checks are WH-01 to WH-09 and WH-06b; each needs the
// spec's webhooks section (check.WebhookPolicy).
//
// Suite returns the suite with a Config of tolerance and copies; the zero
// Config means the documented defaults. Sign signs a delivery as a provider
// does.
package webhooks
