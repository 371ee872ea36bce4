package idempotency

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/reports"
)

const (
	ikSource = "draft-ietf-httpapi-idempotency-key-header-07"
	Name     = "idempotency"
)

// answerBlame lays a wrong answer (a replay, a status, a problem type) at
// the door of the tier whose answer the caller got; the suite's own rules
// lay a second effect at the tier that made the dependency calls.
var answerBlame = []check.BlameRule{check.BlameResends, check.BlameAnswer}

// Idempotency returns the duplicate-side-effect suite.
func checks() []check.Check {
	return []check.Check{
		{ID: "IK-03", Suite: Name, Level: reports.LevelShould, Source: ikSource + " §2.6",
			Title: "a first request with a fresh key is processed once", Run: keyed(firstRequest)},
		{ID: "IK-04", Suite: Name, Blame: answerBlame, Needs: []check.Need{needKeyKept(2 * time.Second)}, Level: reports.LevelShould, Source: ikSource + " §2.6",
			Title: "a retry after completion replays the stored response with no second effect", Run: keyed(replayAfterCompletion)},
		{ID: "IK-17a", Suite: Name, Needs: []check.Need{needKeyKept(5 * time.Second)}, Level: reports.LevelShould, Source: ikSource + " §1, §2.6",
			Title: "a response lost after commit, then a retry with the same key: one effect, the original answer", Run: keyed(lostResponseFront)},
		{ID: "IK-17b", Suite: Name, Level: reports.LevelShould, Needs: []check.Need{check.NeedDependency}, Source: ikSource + " §1, §2.6",
			Title: "a response lost between the service and its dependency: the service's own retry does not charge twice", Run: keyed(lostResponseDependency)},
		{ID: "IK-07", Suite: Name, Needs: []check.Need{needKeyKept(5 * time.Second)}, Level: reports.LevelShould, Source: ikSource + " §2.6, §2.7",
			Title: "concurrent copies of one request: one effect, the rest 409 or the replay", Run: keyed(concurrentCopies)},
		{ID: "IK-06", Suite: Name, Blame: answerBlame, Needs: []check.Need{needKeyKept(2 * time.Second)}, Level: reports.LevelShould, Source: ikSource + " §2.7; RFC 9110 §15.5.21",
			Title: "the same key with a different payload is rejected with no new effect", Run: keyed(payloadMismatch)},
		{ID: "IK-05", Suite: Name, Blame: answerBlame, Needs: []check.Need{check.NeedHTTPAnswers}, Level: reports.LevelShould, Source: ikSource + " §2.7",
			Title: "a request without a key is refused with 400 and a documentation link", Run: keyed(missingKey)},
		// §2.1 makes the key an sf-String, which admits spaces, escaped quotes,
		// SQL or NoSQL metacharacters and path segments; §5 asks a resource to
		// validate keys against the format it publishes, which the spec does
		// not declare. So either answer is allowed; what every format demands
		// is that the resource survives the key.
		{ID: "IK-14", Suite: Name, Blame: answerBlame, Level: reports.LevelRecommended, Source: ikSource + " §2.1, §5; RFC 9651 §3.3.3",
			Title: "malformed, oversized and hostile keys get 400 or ordinary handling, never a 5xx or a dropped connection", Run: keyed(malformedKeys)},
		{ID: "IK-13", Suite: Name, Blame: answerBlame, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedTenancy, needKeyKept(2 * time.Second)}, Source: ikSource + " §5",
			Title: "the same key from two tenants: two effects, neither sees the other's response", Run: keyed(crossTenant)},
		{ID: "IK-17p", Suite: Name, Takes: ikExplore, Explores: true, Needs: []check.Need{needKeyKept(time.Minute)}, Level: reports.LevelShould, Source: ikSource + " §1, §2.6 (a property over random operations and faults)",
			Title: "property: under random retries, bursts, payload changes, tenants and faults, at most one effect per (tenant, key)", Run: idempotencyProperty},
	}
}

func firstRequest(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	r := h.Send(ctx, check.Call{Key: c.Key(), Tenant: c.Tenant(), Amount: c.Amount()})
	ef := c.Effects(ctx)
	want := "a success status and exactly 1 effect at the dependency"
	if !h.Succeeded(r) || ef.Total != 1 {
		return check.Fail(want, fmt.Sprintf("%s and %d effects", check.Describe(r), ef.Total), c.Evidence()...)
	}
	return check.Pass(want, fmt.Sprintf("%s and 1 effect", check.Describe(r)), c.Evidence()...)
}

func replayAfterCompletion(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	base := check.Call{Key: c.Key(), Tenant: c.Tenant(), Amount: c.Amount()}
	first := h.Send(ctx, base)
	if !h.Succeeded(first) {
		return check.Inconclusive("the first request did not succeed (%s); nothing to replay", check.Describe(first))
	}
	want := fmt.Sprintf("3 retries replay %d with a byte-equal body; 1 effect", first.Status)
	for i := range 3 {
		r := h.Send(ctx, base)
		if r.Err != nil || r.Status != first.Status || !bytes.Equal(r.Body, first.Body) {
			return check.Fail(want, fmt.Sprintf("retry %d: %s, body %s (first was %s)", i+1, check.Describe(r), check.Excerpt(r.Body), check.Excerpt(first.Body)), c.Evidence()...)
		}
	}
	if ef := c.Effects(ctx); ef.Total != 1 {
		return check.Fail(want, fmt.Sprintf("identical replays but %d effects at the dependency", ef.Total), c.Evidence()...)
	}
	return check.Pass(want, "3 identical replays, 1 effect", c.Evidence()...)
}

// Suite is the idempotency suite: duplicate side effects under lost
// answers, retries and concurrent copies.
func Suite() check.Suite {
	return check.Suite{Name: Name, Checks: checks(), Blame: []check.BlameRule{check.BlameResends, check.BlameCalls, check.BlameAnswer}}
}
