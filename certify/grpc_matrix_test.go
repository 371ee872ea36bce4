package certify

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/resilcheck/resilcheck/check/amplification"
	"github.com/resilcheck/resilcheck/check/deadlines"
	"github.com/resilcheck/resilcheck/check/hedging"
	"github.com/resilcheck/resilcheck/check/idempotency"
	"github.com/resilcheck/resilcheck/check/outbox"
	"github.com/resilcheck/resilcheck/check/queue"
	"github.com/resilcheck/resilcheck/check/retryafter"
	"github.com/resilcheck/resilcheck/check/throttling"
	"github.com/resilcheck/resilcheck/check/webhooks"
	"github.com/resilcheck/resilcheck/check/webhooksender"
	"github.com/resilcheck/resilcheck/internal/keepfailed"
	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/internal/reference/defect"
	"github.com/resilcheck/resilcheck/internal/reference/target"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// grpcFaceSuites are the suites whose checks the gRPC face can show
// anything to: its call, its processor calls and its deadline. The rest
// judge what the face does not have (the gateway's limiter, webhooks, a
// queue, an outbox) and must be not applicable.
var grpcFaceSuites = []string{idempotency.Name, amplification.Name, retryafter.Name, deadlines.Name, hedging.Name, throttling.Name}

// grpcHTTPOnly are the defects the gRPC face cannot show, and why: they
// live in the gateway, which the face is reached without, or in a part of
// the service no call of the face reaches.
var grpcHTTPOnly = map[defect.Name]string{
	defect.RetryEveryTier:           "the gateway's retries: the gRPC face is reached without the gateway",
	defect.GatewayResendOnReset:     "the gateway's re-sends: the gRPC face is reached without the gateway",
	defect.NoRetryAfterHeader:       "the gateway's 429 and 503 headers: no gateway in front of the gRPC face",
	defect.BadRetryAfter:            "the gateway's 429 and 503 headers: no gateway in front of the gRPC face",
	defect.NoRateLimitHeaders:       "the gateway's rate-limit fields: the gRPC face has no limiter",
	defect.LyingRateLimitRemaining:  "the gateway's rate-limit fields: the gRPC face has no limiter",
	defect.SharedRateLimitRemaining: "the gateway's rate-limit fields: the gRPC face has no limiter",
}

// grpcElsewhere are the suites of defects no call of the gRPC face
// reaches, with why; each suite's own matrix test proves them.
var grpcElsewhere = map[string]string{
	webhooks.Name:      "the webhook receiver is an HTTP route, POST /v1/webhooks",
	webhooksender.Name: "deliveries follow a committed payment, whichever face made it",
	queue.Name:         "the queue consumer's payments come from the broker, not through a face",
	outbox.Name:        "the outbox's events follow a committed payment, whichever face made it",
}

// grpcNotApplicable are the checks of grpcFaceSuites that do not apply to
// the gRPC face, and why; any other not applicable there is an error, so a
// check that stops applying cannot hide a miss.
var grpcNotApplicable = map[string]string{
	"IK-05":  "its documentation link is HTTP's (problem+json, Link)",
	"HS-14":  "the face is reached directly (service.front: direct): no tier in front to re-send a POST",
	"HS-01a": "Retry-After on the face's own answers is HTTP's",
	"HS-01b": "Retry-After on the face's own answers is HTTP's",
	"HS-02":  "Retry-After on the face's own answers is HTTP's",
	"RL-09":  "no rate-limited route: the limiter is the gateway's",
	"HS-09g": "the processor speaks HTTP: no grpc-retry-pushback-ms to send it",
	"DL-04g": "grpc-timeout is the face's own deadline header, judged by DL-04",
	"DL-04e": "the face reads grpc-timeout alone, not x-envoy-upstream-rq-timeout-ms",
	// As on the HTTP face: the stack declares full-jitter backoff.
	"BO-02": "the stack declares full backoff, not equal",
	"BO-03": "the stack declares full backoff, not decorrelated",
	"BO-04": "the stack declares full backoff, not exponential",
}

// grpcChanges are the expectations the gRPC face changes from
// target.Matrix(), each with why; the others carry over, cut to the suites
// a case runs.
var grpcChanges = map[defect.Name]target.Expectation{
	// DL-04 sends its budget as grpc-timeout, the face's own header, and
	// DL-04g and DL-04e do not apply (grpcNotApplicable).
	defect.NoDeadlinePropagation: {Must: []string{"DL-04"}},
}

// grpcCases are the certifications of the gRPC face: the correct stack on
// every suite, and each defect it can show on the suite of its contract.
// A defect whose case requires no failure, or a reason naming no check of
// the face's suites, is an error: such a case could not fail.
func grpcCases(t *testing.T) []grpcCase {
	cases := []grpcCase{{suites: nil}}
	for _, d := range defect.All() {
		_, httpOnly := grpcHTTPOnly[d.Name]
		_, elsewhere := grpcElsewhere[d.Contract]
		switch {
		case httpOnly || elsewhere:
		case slices.Contains(grpcFaceSuites, d.Contract):
			c := grpcCase{defect: d.Name, suites: []string{d.Contract}}
			if len(grpcWant(c).Must) == 0 {
				t.Errorf("defect %s: no check of suite %s must fail on the gRPC face, so its case cannot fail", d.Name, d.Contract)
			}
			cases = append(cases, c)
		default:
			t.Errorf("defect %s (%s, %s): neither a gRPC case nor excluded with a reason", d.Name, d.Component, d.Contract)
		}
	}
	face := suiteChecks(grpcFaceSuites)
	for id := range grpcNotApplicable {
		if !face[id] {
			t.Errorf("grpcNotApplicable names %s, no check of the face's suites %v", id, grpcFaceSuites)
		}
	}
	return cases
}

type grpcCase struct {
	defect defect.Name
	suites []string // nil: all
}

// TestGRPCReference_matrix certifies the reference's gRPC face (spec
// reference.face: grpc) correct, where every applicable check passes, and
// with each defect its calls can show, where exactly the checks
// target.Matrix() expects fail (grpcChanges where the face changes that).
// Each defect runs the suite of its contract alone, on two copies. Not
// parallel: beside TestMatrix's certifications its own would leave the
// timed checks of both to a starved runner.
func TestGRPCReference_matrix(t *testing.T) {
	cases := grpcCases(t)
	if testing.Short() {
		t.Skipf("certifies the gRPC face %d times", len(cases))
	}
	// In order: the correct case, the longest, first.
	results := inOrder(len(cases), func(i int) certified { return certifyGRPCCase(cases[i], 20261201+uint64(i)) })
	for i, c := range cases {
		t.Run(caseName(c.defect), func(t *testing.T) {
			results[i].judge(t, func(rep *reports.Report) { judgeGRPCCase(t, c, rep) })
		})
	}
}

// grpcReferenceSpec is the spec a user writes to certify the gRPC face
// with defect d switched on.
func grpcReferenceSpec(d defect.Name) string {
	if d == "" {
		// Every suite: on four copies, it takes about as long as the
		// longest defect's suite on two.
		return "version: 1\nkind: reference\nconcurrency: 4\nreference:\n  face: grpc\n"
	}
	return fmt.Sprintf("version: 1\nkind: reference\nconcurrency: 2\nreference:\n  face: grpc\n  defects: [%s]\n", d)
}

// certifyGRPCCase certifies the gRPC face as c says, on seed; a report
// that may fail its judgement holds its journal for diagnosis.
func certifyGRPCCase(c grpcCase, seed uint64) certified {
	kinds := launch.Kinds{targets.KindReference: target.Kind()}
	tg, err := targets.Parse(caseName(c.defect)+".yaml", []byte(grpcReferenceSpec(c.defect)), targets.WithKinds(kinds.Specs()))
	if err != nil {
		return certified{err: err}
	}
	res, err := Run(context.Background(), Config{Target: tg, Kinds: kinds, Seed: seed, Suites: c.suites})
	if err != nil {
		return certified{err: err}
	}
	out := certified{report: res.Report}
	if doubtful(grpcWant(c), res.Report) {
		out.journal = keepfailed.Hold("TestGRPCReference_matrix/"+caseName(c.defect), seed, res.Journal)
	}
	return out
}

// judgeGRPCCase holds rep to grpcWant(c), laid at no tier (the face is one),
// on the stack with c's defect alone, and to the checks the face leaves
// out: exactly grpcNotApplicable among its suites', every other suite's.
func judgeGRPCCase(t *testing.T, c grpcCase, rep *reports.Report) {
	t.Helper()
	failed := judgeMatrixCase(t, c.defect, rep, grpcWant(c), "")
	if got := rep.Target; got.Kind != "reference" || !slices.Equal(got.Defects, defectNames(c.defect)) {
		t.Errorf("report target = %+v; want kind reference with defects %v", got, defectNames(c.defect))
	}
	face := suiteChecks(grpcFaceSuites)
	for _, ch := range rep.Checks {
		_, why := grpcNotApplicable[ch.ID]
		switch na := ch.Status == reports.StatusNotApplicable; {
		case face[ch.ID] && na && !why:
			t.Errorf("%s not applicable to the gRPC face: %s", ch.ID, ch.Reason)
		case face[ch.ID] && !na && why:
			t.Errorf("%s applies (%s), where the gRPC face was expected to leave it out: %s", ch.ID, ch.Status, grpcNotApplicable[ch.ID])
		case !face[ch.ID] && !na:
			t.Errorf("%s ran (%s) on the gRPC face, which declares nothing its suite judges", ch.ID, ch.Status)
		}
	}
	t.Logf("failed: %v (%s, seed %d)", failed, rep.Duration, rep.Seed)
}

// grpcWant is what c's report must show: grpcChanges' expectation for its
// defect, or target.Matrix()'s, cut to the checks of c's suites.
func grpcWant(c grpcCase) target.Expectation {
	want, changed := grpcChanges[c.defect]
	if !changed {
		want = target.Matrix()[c.defect]
	}
	if c.suites == nil {
		return want
	}
	run := suiteChecks(c.suites)
	cut := func(ids []string) []string {
		return slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return !run[id] })
	}
	return target.Expectation{Must: cut(want.Must), May: cut(want.May), Vacuous: cut(want.Vacuous)}
}

// suiteChecks is the set of the IDs of the built-in suites named.
func suiteChecks(names []string) map[string]bool {
	out := map[string]bool{}
	for id, s := range suiteByCheck() {
		if slices.Contains(names, s) {
			out[id] = true
		}
	}
	return out
}
