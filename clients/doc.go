// Package clients certifies retrying HTTP clients (SDKs, gateways, command-line
// tools) with the harness as their server, as the Cloud Storage retry
// conformance testbench does for its SDKs. Each scenario is a script of
// per-attempt answers (503 with Retry-After, 429 with an HTTP-date, reset,
// stall, 400, success) served at its own path by a stand-in fault proxy that
// journals every attempt; the client is called once per scenario, all
// scenarios at once, and the client suite's checks judge the journal, the
// time the call took and what the client reported against the policy the
// client declares.
//
//	res, err := clients.Run(ctx, clients.Func(myCall), clients.Policy{MaxAttempts: 4, Deadline: 12 * time.Second}, clients.Options{})
//	for _, c := range res.Checks { fmt.Println(c.ID, c.Status) }
//
// The checks are the client suite (Suite), judged through package check.
// From a Go test, package clienttest's Certify does the same and fails the
// test on a failed check.
package clients
