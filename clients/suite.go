package clients

import (
	"fmt"
	"slices"
	"strings"

	"github.com/resilcheck/resilcheck/reports"
)

var (
	needMaxAttempts = Need{Name: "client max attempts", Doc: "the client declares how many attempts an operation makes at most",
		Unmet: func(p Policy) string {
			if p.MaxAttempts == 0 {
				return "the client declares no attempt cap"
			}
			return ""
		}}
	needDeadline = Need{Name: "client deadline", Doc: "the client declares how long an operation, retries included, may take",
		Unmet: func(p Policy) string {
			if p.Deadline == 0 {
				return "the client declares no deadline"
			}
			return ""
		}}
)

// Checks returns the client suite, by ID.
func Checks() []Check {
	const ra = "RFC 9110 §10.2.3"
	const dates = "RFC 9110 §5.6.7, §10.2.3"
	return []Check{
		{ID: "CL-01", Level: reports.LevelRecommended, Needs: []Need{needMaxAttempts},
			Source: `Google SRE book ch. 22 "Addressing Cascading Failures" (limit retries per request); gRFC A6 (maxAttempts)`,
			Title:  "attempts per operation stay within the client's declared cap", Judge: judgeCap},
		{ID: "CL-02", Level: reports.LevelRecommended, Source: ra,
			Title: "after a Retry-After in delay-seconds, the next attempt comes no earlier", Judge: judgeRetryAfter(FormSeconds)},
		{ID: "CL-02a", Level: reports.LevelMust, Source: dates,
			Title: "a Retry-After asctime date is honoured: no attempt before it", Judge: judgeRetryAfter(FormAsctime)},
		{ID: "CL-02f", Level: reports.LevelMust, Source: dates,
			Title: "a Retry-After IMF-fixdate is honoured: no attempt before it", Judge: judgeRetryAfter(FormIMFFixdate)},
		{ID: "CL-02r", Level: reports.LevelMust, Source: dates,
			Title: "a Retry-After RFC 850 date is honoured: no attempt before it", Judge: judgeRetryAfter(FormRFC850)},
		{ID: "CL-03", Level: reports.LevelRecommended, Needs: []Need{needDeadline},
			Source: `RFC 9110 §10.2.3; Google SRE book ch. 22 "Addressing Cascading Failures" (deadlines)`,
			Title:  "a Retry-After longer than the client's deadline does not hold it past the deadline", Judge: judgeHugeRetryAfter},
		{ID: "CL-04", Level: reports.LevelRecommended,
			Source: "draft-ietf-httpapi-idempotency-key-header-07 §2, §2.7",
			Title:  "every attempt of one operation carries the same idempotency key", Judge: judgeSameKey},
		{ID: "CL-05", Level: reports.LevelShouldNot, Source: "RFC 9110 §9.2.2",
			Title: "a POST without an idempotency key is not retried automatically", Judge: judgeUnkeyedPost},
		{ID: "CL-06", Level: reports.LevelRecommended,
			Source: `RFC 9110 §15.5; AWS SDKs and Tools Reference Guide "Retry behavior" (transient errors only)`,
			Title:  "a 4xx other than 408, 409 and 429 is not retried", Judge: judgeClientError},
		{ID: "CL-07", Level: reports.LevelRecommended,
			Source: `Brooker 2015, "Exponential Backoff And Jitter" (AWS Architecture Blog); Google SRE book ch. 22 "Addressing Cascading Failures" ("Always use randomized exponential backoff")`,
			Title:  "waits between retries without Retry-After grow", Judge: judgeBackoff},
		{ID: "CL-08", Level: reports.LevelRecommended, Needs: []Need{needDeadline},
			Source: `Google SRE book ch. 22 "Addressing Cascading Failures" (deadlines); gRFC A6 (the deadline covers every attempt)`,
			Title:  "an operation, retries included, ends within the client's declared deadline", Judge: judgeDeadline},
		{ID: "CL-09", Level: reports.LevelMust, Source: `RFC 9110 §15 ("A client MUST understand the class of any status code")`,
			Title: "the client reports success only when an attempt succeeded, and failure otherwise", Judge: judgeReport},
		{ID: "CL-10", Level: reports.LevelRecommended, Source: "RFC 9110 §15.6.4; RFC 6585 §4; RFC 9110 §10.2.3",
			Title: "503 and 429 answers are retried until an attempt succeeds: every scripted answer is consumed", Judge: judgeRetried(false)},
		{ID: "CL-11", Level: reports.LevelRecommended, Source: "RFC 9110 §9.2.2 (idempotent requests can be repeated after a communication failure)",
			Title: "a reset or stalled attempt of an idempotent request is retried until one succeeds", Judge: judgeRetried(true)},
		{ID: "CL-13", Level: reports.LevelRecommended,
			Source: `Brooker 2015, "Exponential Backoff And Jitter" (AWS Architecture Blog); Google SRE book ch. 22 "Addressing Cascading Failures" ("Always use randomized exponential backoff")`,
			Title:  "clients failing together do not retry in lockstep: their waits are jittered", Judge: judgeDispersal},
		{ID: "CL-12", Level: reports.LevelRecommended, Needs: []Need{needDeadline},
			Source: `Google SRE book ch. 22 "Addressing Cascading Failures" (Deadline propagation); grpc.io "Deadlines" (Deadline Propagation)`,
			Title:  "a deadline header the client sends never exceeds what remains of its deadline", Judge: judgeBudget},
	}
}

// Select returns the checks with the given IDs (all when none is given), or
// an error naming an unknown one.
func Select(ids ...string) ([]Check, error) {
	all := Checks()
	if len(ids) == 0 {
		return all, nil
	}
	var out []Check
	for _, id := range ids {
		i := slices.IndexFunc(all, func(c Check) bool { return strings.EqualFold(c.ID, id) })
		if i < 0 {
			return nil, fmt.Errorf("clients: no check %q in the client suite", id)
		}
		out = append(out, all[i])
	}
	return out, nil
}
