// Package processor is the reference stack's external dependency: an
// in-memory card processor that charges once per Idempotency-Key.
//
//	POST /charges        {"amount":1200,"currency":"EUR","reference":"pay_…"} → 201 charge
//	GET  /ledger         {"charges":N,"by_key":{"pay_…":1},"unkeyed":0,"declined":0}
//	POST /ledger/reset   empties the ledger
//	GET  /healthz        {"status":"ok"}
//
// The same key with the same payload replays the first answer with
// Idempotent-Replayed: true; the same key with another payload is 422; a
// request without a key always creates a new charge and is counted as
// unkeyed, which is how the ledger exposes a caller that forgot its key.
// Amount 402 is declined (402 problem+json), a final business failure.
package processor
