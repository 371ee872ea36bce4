// Package webhooks certifies webhook receivers written elsewhere, on
// popular libraries, with the webhooks suite, and compares every verdict
// with the one the library's code calls for (expectations.yaml beside each
// receiver, in the variants format of package expect): a correct variant
// and one that breaks a rule the way the library's own example does.
package webhooks
