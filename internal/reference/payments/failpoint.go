package payments

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

// Step names a boundary of the claim → charge → complete protocol, where a
// crash of the service leaves a distinct state behind.
type Step string

// The steps, in protocol order.
const (
	StepClaimed   Step = "claimed"   // the claim is committed; the processor not yet called
	StepCharged   Step = "charged"   // the processor answered; nothing recorded yet
	StepCompleted Step = "completed" // the answer and payment are committed; the client not yet answered
)

// Steps lists the protocol's steps in order.
func Steps() []Step { return []Step{StepClaimed, StepCharged, StepCompleted} }

// WithFailpoint calls f at every step of a claimed request (the correct
// flow; the defects hold no claim). When f returns true the request dies
// there as a crash would take it: no reply (the connection is cut), no
// cleanup, only what the store committed. Tests drive crashes with it.
func WithFailpoint(f func(step Step, tenant, key string) bool) Option {
	return func(c *config) { c.failpoint = f }
}

// failAt is a failpoint for j at step.
func (s *Server) failAt(step Step, j job) {
	if s.cfg.failpoint == nil || j.owner == "" || s.cfg.defects.Has(defect.WorkAfterDeadline) {
		return // work-after-deadline charges on a goroutine no handler recovers
	}
	if s.cfg.failpoint(step, j.tenant, j.key) {
		panic(http.ErrAbortHandler) // net/http cuts the connection and sends nothing
	}
}

// claimedPaymentID is the payment id, and so the processor's idempotency
// key, of generation gen of a claimed request: derived from the record's
// scope, key and payload, not drawn. Should a committed claim be lost (a
// store restored from a backup, a replica promoted before it caught up),
// the retry that claims again drives the same id, which the processor
// dedupes, instead of a new one it would charge again.
func claimedPaymentID(recTenant, key, fingerprint string, gen int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%s\x00%d", recTenant, key, fingerprint, gen))
	return "pay_" + hex.EncodeToString(sum[:8])
}
