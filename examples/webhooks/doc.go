// Package webhooks certifies webhook receivers and senders written
// elsewhere, on popular libraries, with the webhooks and webhook-sender
// suites, and compares every verdict with the one the library's code calls
// for (expectations.yaml beside each target, in the variants format of
// package expect): a correct variant and variants that break a rule the
// way the library's own example or defaults do.
package webhooks
