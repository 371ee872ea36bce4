// Package load drives HTTP load with vegeta (github.com/tsenart/vegeta/v12/lib)
// as a library: constant, linear or sine pacing, per-request headers (fresh
// idempotency keys from a seeded generator, tenants, extra headers), results
// streamed to a callback or encoded in vegeta's gob, JSON and CSV formats, and
// the achieved rate compared with the requested one. A run that falls short
// of its rate is reported as a *ShortfallError, never silently as a pass.
//
//	rep, err := load.Run(ctx, load.Spec{
//		URL: "http://127.0.0.1:8080/v1/payments", Method: "POST",
//		Body:      []byte(`{"amount":{{.Seq}},"currency":"EUR"}`),
//		KeyHeader: "Idempotency-Key",
//		Pacing:    load.Pacing{Rate: 20},
//		Duration:  2 * time.Second,
//		Seed:      7,
//	}, nil)
//
// Every Attacker vegeta builds is used once; the HTTP client never follows an
// environment proxy and never replays a request on its own (net/http would
// replay a POST carrying Idempotency-Key on a reused connection).
package load
