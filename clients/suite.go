package clients

import (
	"fmt"
	"slices"
	"strings"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/reports"
)

var (
	needMaxAttempts = check.Need{Name: "client max attempts", Doc: "the client declares how many attempts an operation makes at most",
		Unmet: func(h *check.Harness) string {
			if policyOf(h).MaxAttempts == 0 {
				return "the client declares no attempt cap"
			}
			return ""
		}}
	needDeadline = check.Need{Name: "client deadline", Doc: "the client declares how long an operation, retries included, may take",
		Unmet: func(h *check.Harness) string {
			if policyOf(h).Deadline == 0 {
				return "the client declares no deadline"
			}
			return ""
		}}
)

// Suite returns the client suite judging by cfg. Its checks judge the
// scenario runs Run collects (Suite(Config{}) is the suite as the catalogue
// lists it); they are not Timed, as the times they judge were measured
// before they run.
func Suite(cfg Config) check.Suite {
	return check.Suite{Name: SuiteName, Checks: checks(), Config: cfg, Evidence: evidence,
		Tolerances: func(h *check.Harness) []reports.Tolerance {
			own := check.SuiteConfig[Config](h, SuiteName)
			return tolerances(own.Policy, own.Tolerance.withDefaults(), own.limits.withDefaults())
		}}
}

// checks returns the client suite's checks, in the order they are judged.
func checks() []check.Check {
	const ra = "RFC 9110 §10.2.3"
	const dates = "RFC 9110 §5.6.7, §10.2.3"
	return []check.Check{
		{ID: "CL-01", Suite: SuiteName, Level: reports.LevelRecommended, Needs: []check.Need{needMaxAttempts},
			Source: `Google SRE book ch. 22 "Addressing Cascading Failures" (limit retries per request); gRFC A6 (maxAttempts)`,
			Title:  "attempts per operation stay within the client's declared cap", Run: judged(judgeCap)},
		{ID: "CL-02", Suite: SuiteName, Level: reports.LevelRecommended, Source: ra,
			Title: "after a Retry-After in delay-seconds, the next attempt comes no earlier", Run: judged(judgeRetryAfter(FormSeconds))},
		{ID: "CL-02a", Suite: SuiteName, Level: reports.LevelMust, Source: dates,
			Title: "a Retry-After asctime date is honoured: no attempt before it", Run: judged(judgeRetryAfter(FormAsctime))},
		{ID: "CL-02f", Suite: SuiteName, Level: reports.LevelMust, Source: dates,
			Title: "a Retry-After IMF-fixdate is honoured: no attempt before it", Run: judged(judgeRetryAfter(FormIMFFixdate))},
		{ID: "CL-02r", Suite: SuiteName, Level: reports.LevelMust, Source: dates,
			Title: "a Retry-After RFC 850 date is honoured: no attempt before it", Run: judged(judgeRetryAfter(FormRFC850))},
		{ID: "CL-03", Suite: SuiteName, Level: reports.LevelRecommended, Needs: []check.Need{needDeadline},
			Source: `RFC 9110 §10.2.3; Google SRE book ch. 22 "Addressing Cascading Failures" (deadlines)`,
			Title:  "a Retry-After longer than the client's deadline does not hold it past the deadline", Run: judged(judgeHugeRetryAfter)},
		{ID: "CL-04", Suite: SuiteName, Level: reports.LevelRecommended,
			Source: "draft-ietf-httpapi-idempotency-key-header-07 §2, §2.7",
			Title:  "every attempt of one operation carries the same idempotency key", Run: judged(judgeSameKey)},
		{ID: "CL-05", Suite: SuiteName, Level: reports.LevelShouldNot, Source: "RFC 9110 §9.2.2",
			Title: "a POST without an idempotency key is not retried automatically", Run: judged(judgeUnkeyedPost)},
		{ID: "CL-06", Suite: SuiteName, Level: reports.LevelRecommended,
			Source: `RFC 9110 §15.5; AWS SDKs and Tools Reference Guide "Retry behavior" (transient errors only)`,
			Title:  "a 4xx other than 408, 409 and 429 is not retried", Run: judged(judgeClientError)},
		{ID: "CL-07", Suite: SuiteName, Level: reports.LevelRecommended,
			Source: `Brooker 2015, "Exponential Backoff And Jitter" (AWS Architecture Blog); Google SRE book ch. 22 "Addressing Cascading Failures" ("Always use randomized exponential backoff")`,
			Title:  "waits between retries without Retry-After grow", Run: judged(judgeBackoff)},
		{ID: "CL-08", Suite: SuiteName, Level: reports.LevelRecommended, Needs: []check.Need{needDeadline},
			Source: `Google SRE book ch. 22 "Addressing Cascading Failures" (deadlines); gRFC A6 (the deadline covers every attempt)`,
			Title:  "an operation, retries included, ends within the client's declared deadline", Run: judged(judgeDeadline)},
		{ID: "CL-09", Suite: SuiteName, Level: reports.LevelMust, Source: `RFC 9110 §15 ("A client MUST understand the class of any status code")`,
			Title: "the client reports success only when an attempt succeeded, and failure otherwise", Run: judged(judgeReport)},
		{ID: "CL-10", Suite: SuiteName, Level: reports.LevelRecommended, Source: "RFC 9110 §15.6.4; RFC 6585 §4; RFC 9110 §10.2.3",
			Title: "503 and 429 answers are retried until an attempt succeeds: every scripted answer is consumed", Run: judged(judgeRetried(false))},
		{ID: "CL-11", Suite: SuiteName, Level: reports.LevelRecommended, Source: "RFC 9110 §9.2.2 (idempotent requests can be repeated after a communication failure)",
			Title: "a reset or stalled attempt of an idempotent request is retried until one succeeds", Run: judged(judgeRetried(true))},
		{ID: "CL-13", Suite: SuiteName, Level: reports.LevelRecommended,
			Source: `Brooker 2015, "Exponential Backoff And Jitter" (AWS Architecture Blog); Google SRE book ch. 22 "Addressing Cascading Failures" ("Always use randomized exponential backoff")`,
			Title:  "clients failing together do not retry in lockstep: their waits are jittered", Run: judged(judgeDispersal)},
		{ID: "CL-14", Suite: SuiteName, Level: reports.LevelRecommended, Needs: []check.Need{needHedging},
			Source: `Dean & Barroso, "The Tail at Scale", CACM 56(2), 2013; gRFC A6 (hedgingDelay)`,
			Title:  "a hedging client copies a slow attempt once the declared delay has passed, not before", Run: judged(judgeHedgeDelay)},
		{ID: "CL-15", Suite: SuiteName, Level: reports.LevelRecommended, Needs: []check.Need{needHedging},
			Source: "gRFC A6 (hedgingPolicy maxAttempts: the original and its hedges)",
			Title:  "a hedging client sends no more copies of an attempt than it declares", Run: judged(judgeHedgeCopies)},
		{ID: "CL-16", Suite: SuiteName, Level: reports.LevelRecommended, Needs: []check.Need{needHedging},
			Source: `Dean & Barroso, "The Tail at Scale" (the client cancels remaining outstanding requests once the first result is received); gRFC A6`,
			Title:  "a hedging client cancels the other copies once one is answered", Run: judged(judgeHedgeCancel)},
		{ID: "CL-12", Suite: SuiteName, Level: reports.LevelRecommended, Needs: []check.Need{needDeadline},
			Source: `Google SRE book ch. 22 "Addressing Cascading Failures" (Deadline propagation); grpc.io "Deadlines" (Deadline Propagation)`,
			Title:  "a deadline header the client sends never exceeds what remains of its deadline", Run: judged(judgeBudget)},
	}
}

// selectChecks returns the checks of all with the given IDs (all when
// none is given), or an error naming an unknown one.
func selectChecks(all []check.Check, ids []string) ([]check.Check, error) {
	if len(ids) == 0 {
		return all, nil
	}
	var out []check.Check
	for _, id := range ids {
		i := slices.IndexFunc(all, func(c check.Check) bool { return strings.EqualFold(c.ID, id) })
		if i < 0 {
			return nil, fmt.Errorf("clients: no check %q in the client suite", id)
		}
		out = append(out, all[i])
	}
	return out, nil
}
