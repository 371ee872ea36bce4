package reports

import (
	"time"
)

func ms(n int) Duration { return Duration(time.Duration(n) * time.Millisecond) }

// fixture is a finalized report with every status: passing checks, a failure
// with evidence across three sides, a failed property with a counterexample,
// a not-applicable and an inconclusive check, and hostile user text to escape.
func fixture() *Report {
	r := &Report{
		Seed:      424242,
		Reproduce: "resilcheck certify --reference --defect racy-idempotency --seed 424242",
		Target: Target{Name: "reference", Kind: "reference",
			URLs:    map[string]string{"front": "http://127.0.0.1:40001", "dependency": "http://127.0.0.1:40002"},
			Defects: []string{"racy-idempotency"}},
		Tool:     Tool{Name: "resilcheck", Version: "v0.1.0", Go: "go1.26.0"},
		Started:  time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
		Duration: ms(12_345),
		Tolerances: []Tolerance{
			{Name: "epsilon", Value: "50ms", Why: "bounds are one-sided: no earlier than the bound minus this slack"},
			{Name: "concurrency", Value: "2..50", Why: "copies of one request raced"},
		},
		Suites:  []SuiteSummary{{Name: "idempotency"}, {Name: "retry-after"}, {Name: "ratelimit"}},
		Journal: "journal.jsonl",
		TLS: &TLS{Authority: "3F:A1:07:5C:9B:22:E4:10:6D:8E:4F:01:B2:C3:D4:E5:F6:07:18:29:3A:4B:5C:6D:7E:8F:90:A1:B2:C3:D4:E5",
			Hops: []TLSHop{{Hop: "front", Upstream: "CA file certs/service-ca.pem"},
				{Hop: "dependency:processor", Terminated: true, Upstream: "system roots"},
				{Hop: "dependency:ledger", Terminated: true, StandIn: true}}},
		Checks: []Check{
			{ID: "HS-08", Suite: "retry-after", Title: "waits for the dependency's Retry-After", Source: "RFC 9110 §10.2.3",
				Level: LevelMust, Status: StatusPass, Duration: ms(2100), Evidence: retryAfterEvidence()},
			{ID: "HS-10", Suite: "retry-after", Title: "HTTP-date Retry-After in asctime form", Level: LevelMust,
				Status: StatusInconclusive, Reason: "dependency proxy unreachable: dial tcp 127.0.0.1:40002: connection refused",
				Duration: ms(3)},
			{ID: "IK-10", Suite: "idempotency", Title: "retry after a lost response: one effect, original answer",
				Source: "draft-ietf-httpapi-idempotency-key-header-07 §2.7", Level: LevelMust, Status: StatusFail,
				Expected: "1 effect at the dependency; the retry returns the original 201 body",
				Observed: "2 effects at the dependency\nbody <script>alert(1)</script> differs",
				Evidence: lostResponseEvidence(), Duration: ms(180),
				Reproduce: "resilcheck certify --reference --defect racy-idempotency --seed 424242 --case 'lost-response|k1'"},
			{ID: "IK-02", Suite: "idempotency", Title: "first request is processed once", Source: "draft-ietf-httpapi-idempotency-key-header-07 §2.5",
				Level: LevelMust, Status: StatusPass, Duration: ms(12)},
			{ID: "IK-PROP", Suite: "idempotency", Title: "state machine: at most one effect per (tenant, key) | `any` fault",
				Source: "draft-ietf-httpapi-idempotency-key-header-07 §2.6", Level: LevelShould, Status: StatusFail,
				Expected: "at most one effect per (tenant, key)", Observed: "key \"k-0\" of tenant a: 2 effects",
				Counterexample: []string{`new op tenant=a key="k-0" fault=none`, `burst copies=2 key="k-0" fault=duplicate-delivery`},
				Reproduce:      "resilcheck certify --reference --suite idempotency --seed 77 --property",
				Duration:       ms(4200)},
			{ID: "IK-13", Suite: "idempotency", Title: "same key from two tenants", Level: LevelMust, Status: StatusNotApplicable,
				Reason: "target declares no tenancy", Duration: 0},
			{ID: "IK-07", Suite: "idempotency", Title: "concurrent copies of one request: one effect, the rest 409 or the replay",
				Source: "draft-ietf-httpapi-idempotency-key-header-07 §2.6", Level: LevelMust, Status: StatusFail,
				Expected: "1 effect for 4 concurrent copies", Observed: "2 effects at the dependency; tier: service (every hop carried one request per request; the dependency calls come from service)",
				Tier: "service", Evidence: concurrentEvidence(), Duration: ms(90), Reproduce: "resilcheck certify --reference --seed 424242 --check IK-07"},
			loadCheck(),
		},
	}
	r.Finalize()
	return r
}

// interruptedFixture is fixture stopped by a signal halfway through.
func interruptedFixture() *Report {
	r := fixture()
	r.Interrupted = "interrupt signal received; load and faults stopped"
	r.Checks = r.Checks[:3]
	r.Finalize()
	return r
}

func lostResponseEvidence() []Exchange {
	key := map[string]string{"Idempotency-Key": `"k1"`}
	return []Exchange{
		{ID: 11, Side: "client", Case: "lost-response", Method: "POST", Path: "/payments", Headers: key, Status: 0, At: ms(100), Took: ms(31), Fault: "lose-response", Note: "response dropped after commit"},
		{ID: 12, Side: "front", Case: "lost-response", Method: "POST", Path: "/payments", Headers: key, Status: 201, At: ms(101), Took: ms(29)},
		{ID: 13, Side: "dependency", Case: "lost-response", Method: "POST", Path: "/charges", Headers: key, Status: 200, At: ms(110), Took: ms(8)},
		{ID: 14, Side: "client", Case: "lost-response", Method: "POST", Path: "/payments", Headers: key, Status: 201, At: ms(140), Took: ms(35)},
		{ID: 15, Side: "front", Case: "lost-response", Method: "POST", Path: "/payments", Headers: key, Status: 201, At: ms(141), Took: ms(33)},
		{ID: 16, Side: "dependency", Case: "lost-response", Method: "POST", Path: "/charges", Headers: key, Status: 200, At: ms(150), Took: ms(9), Note: "second effect: see https://example.invalid/x.js"},
	}
}

// retryAfterEvidence shows two cases: attempts bunching before a
// Retry-After of 1s, then the wait honoured.
func retryAfterEvidence() []Exchange {
	ev := []Exchange{
		{ID: 40, Side: "client", Case: "ra-seconds", Method: "POST", Path: "/payments", Status: 201, At: ms(1000), Took: ms(1090)},
		{ID: 41, Side: "dependency", Case: "ra-seconds", Method: "POST", Path: "/charges", Status: 429, At: ms(1010), Took: ms(2), Fault: "status-429", Headers: map[string]string{"Retry-After": "1"}},
		{ID: 42, Side: "dependency", Case: "ra-seconds", Method: "POST", Path: "/charges", Status: 200, At: ms(2020), Took: ms(3)},
		{ID: 50, Side: "client", Case: "ra-date", Method: "POST", Path: "/payments", Status: 201, At: ms(2100), Took: ms(1010)},
		{ID: 51, Side: "dependency", Case: "ra-date", Method: "POST", Path: "/charges", Status: 503, At: ms(2105), Took: ms(1), Fault: "status-503", Headers: map[string]string{"Retry-After": "Sun, 01 Mar 2026 12:00:03 GMT"}},
		{ID: 52, Side: "dependency", Case: "ra-date", Method: "POST", Path: "/charges", Status: 200, At: ms(3100), Took: ms(4)},
	}
	return ev
}

// concurrentEvidence is four copies of one request in flight at once, two
// of which reached the dependency: the timeline needs four lanes.
func concurrentEvidence() []Exchange {
	key := map[string]string{"Idempotency-Key": `"k7"`}
	ev := []Exchange{}
	for i := range 4 {
		st := 409
		if i < 2 {
			st = 201
		}
		ev = append(ev, Exchange{ID: uint64(70 + i), Side: "client", Case: "race", Method: "POST", Path: "/payments", Headers: key,
			Status: st, At: ms(500 + i), Took: ms(40 - 5*i)})
	}
	return append(ev,
		Exchange{ID: 74, Side: "dependency", Case: "race", Method: "POST", Path: "/charges", Headers: key, Status: 200, At: ms(510), Took: ms(10)},
		Exchange{ID: 75, Side: "dependency", Case: "race", Method: "POST", Path: "/charges", Headers: key, Status: 200, At: ms(512), Took: ms(10)})
}

// loadCheck is a load-driven check: 2 s at 100/s through the front, the
// limiter refusing from the second window, sampled to 8 exchanges.
func loadCheck() Check {
	var ev []Exchange
	for i := range 200 {
		st := 200
		if i%100 >= 60 {
			st = 429
		}
		ev = append(ev, Exchange{ID: uint64(1000 + i), Side: "front", Method: "GET", Path: "/limited", Status: st,
			At: ms(5000 + 10*i), Took: ms(2 + i%7)})
	}
	ev[130].Fault = "latency"
	return Check{ID: "RL-08", Suite: "ratelimit", Title: "the advertised quota is enforced", Source: "draft-ietf-httpapi-ratelimit-headers-10 §4",
		Level: LevelShould, Status: StatusPass, Expected: "60 per 1s window", Observed: "admitted 60/100 60/100",
		Evidence: SampleEvidence(ev, 8), EvidenceTotal: len(ev), Load: NewLoad(ev), Duration: ms(2100)}
}

// gatedFixture is fixture compared with a baseline that failed IK-07 and
// HS-08, then gated at SHOULD on new failures only, with an applied, an
// expired and an unused waiver.
func gatedFixture() *Report {
	r := fixture()
	base := fixture()
	for i := range base.Checks {
		switch base.Checks[i].ID {
		case "IK-07", "HS-08":
			base.Checks[i].Status = StatusFail
		default:
			base.Checks[i].Status = StatusPass
		}
	}
	r.CompareBaseline(base, "previous/report.json")
	r.ApplyGate(Gate{FailOn: LevelShould, Source: "spec", NewOnly: true, Waivers: []Waiver{
		{Check: "IK-PROP", Reason: "fixed in PAY-42, rolling out", Expires: "2026-03-31"},
		{Check: "IK-10", Reason: "known since January", Expires: "2026-02-28"},
		{Check: "HS-08", Reason: "flaky upstream", Expires: "2026-12-31"},
	}}, time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	return r
}

// abortedFixture is a run whose target never became healthy.
func abortedFixture() *Report {
	r := &Report{
		Seed: 7, Reproduce: "resilcheck certify -f target.yaml --seed 7",
		Target:       Target{Name: "orders", Kind: "process"},
		Tool:         Tool{Name: "resilcheck", Version: "v0.1.0", Go: "go1.26.0"},
		Started:      time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
		Duration:     ms(30_000),
		Aborted:      "the target is not healthy: GET http://127.0.0.1:8080/healthz not healthy after 60 attempts in 30s; last status: 503",
		TargetOutput: "\tlistening on :8080\n\tpanic: database is locked",
	}
	r.ApplyGate(Gate{FailOn: DefaultFailOn, Source: "default"}, r.Started)
	return r
}
