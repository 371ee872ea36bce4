// Package deadlines is the deadline contract: the target answers within the
// caller's budget, passes a shrinking budget on to its dependency in the
// deadline headers it declares (X-Request-Timeout-Ms, grpc-timeout, Envoy's),
// cancels its dependency call when the budget runs out and does no work
// after it. Its checks are DL-* and HS-18, with DL-03p exploring budgets,
// headers and dependency latencies.
//
// Suite returns the suite with a Config of budgets, slack and formats; the
// zero Config means the documented defaults.
package deadlines
