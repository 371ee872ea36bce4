// Package replayheader is an example of a check written outside resilcheck,
// against its check kit: a service that keeps Stripe's idempotency
// convention marks an answer it replays from a stored key with
// Idempotent-Replayed: true, and a first answer without it. A client uses
// the header to tell a retried charge it made from a new one.
package replayheader

import (
	"context"
	"fmt"
	"net/http"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/reports"
)

// Name is the suite's name in reports; its one check is CX-01.
const Name = "replay-header"

// Header is the response header the check reads.
const Header = "Idempotent-Replayed"

// Suite returns the example suite: CX-01.
func Suite() check.Suite {
	return check.Suite{Name: Name, Checks: []check.Check{{
		ID:     "CX-01",
		Suite:  Name,
		Level:  reports.LevelConvention,
		Source: `Stripe API reference, "Idempotent requests" (the Idempotent-Replayed response header)`,
		Title:  "a retry replayed from its idempotency key says so (Idempotent-Replayed: true); the first answer does not",
		Run:    replayedSaysSo,
	}}}
}

// replayedSaysSo sends one request, then the same request with the same key
// as a client's retry would, and reads the header on both answers.
func replayedSaysSo(ctx context.Context, c *check.Case) check.Result {
	req := check.Call{Key: c.Key(), Tenant: c.Tenant(), Amount: c.Amount()}
	first := c.Send(ctx, req)
	if first.Err != nil || !c.Succeeded(first) {
		return check.Inconclusive("the first request was not accepted (%s): no answer to replay", check.Describe(first))
	}
	retry := c.Send(ctx, req)
	if retry.Err != nil {
		return check.Inconclusive("the retry failed: %v", retry.Err)
	}
	want := fmt.Sprintf("the first answer without %s, the retry's with %s: true", Header, Header)
	switch {
	case first.Header.Get(Header) != "":
		return check.Fail(want, fmt.Sprintf("the first answer (%d) already said %s: %s", first.Status, Header, first.Header.Get(Header)), c.Evidence()...)
	case retry.Status == http.StatusConflict:
		return check.Inconclusive("the retry met the first request still in progress (409): nothing was replayed")
	case retry.Header.Get(Header) != "true":
		return check.Fail(want, fmt.Sprintf("the retry answered %d without %s: true", retry.Status, Header), c.Evidence()...)
	}
	return check.Pass(want, fmt.Sprintf("first %d without it, retry %d with %s: true", first.Status, retry.Status, Header), c.Evidence()...)
}
