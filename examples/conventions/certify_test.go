package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/certify"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// verdicts maps check IDs to the statuses allowed for them; a check not
// listed must pass.
type verdicts map[string][]reports.Status

var (
	fail  = []reports.Status{reports.StatusFail}
	na    = []reports.Status{reports.StatusNotApplicable}
	incon = []reports.Status{reports.StatusInconclusive}
	// mayFail is for the property, whose random operations may or may not
	// reach the broken behaviour within its bounded cases.
	mayFail = []reports.Status{reports.StatusPass, reports.StatusFail}
)

// The check groups the breaks run; the green certification runs them all.
var (
	idempotencyChecks = []string{"IK-03", "IK-04", "IK-17a", "IK-17b", "IK-07", "IK-06", "IK-05", "IK-14", "IK-13", "IK-17p"}
	deadlineChecks    = []string{"HS-18", "DL-03", "DL-04", "DL-04g", "DL-06", "DL-06b", "DL-07", "HS-18b"}
	retryAfterChecks  = []string{"HS-01b", "HS-08", "RL-10", "HS-03", "HS-09", "HS-10", "HS-02"}
	formulaChecks     = []string{"BO-01", "BO-02", "BO-03", "BO-04"}
)

// greenNotApplicable is what the service does not declare: another backoff
// formula than full jitter, a deadline header besides grpc-timeout (own,
// DL-04), any rate limit.
var greenNotApplicable = verdicts{
	"BO-02": na, "BO-03": na, "BO-04": na, "DL-04g": na, "DL-04e": na,
	"HS-01a": na, "RL-09": na, "HS-05": na, "RL-01": na, "RL-01q": na, "RL-02": na, "RL-03": na, "RL-04": na,
	"RL-07": na, "RL-07b": na, "RL-08": na, "RL-09b": na, "RL-18": na, "RL-20": na, "RL-21": na, "RL-22": na, "RL-24": na,
}

// TestConventions_certify certifies the service through target.yaml, as
// `resilcheck certify -f` does: green as written, and with one convention
// broken at a time, exactly the checks that own it fail. The expectations
// come from reading the service (server.go, ledger.go), one per switch.
func TestConventions_certify(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the service and certifies it as a process 21 times, about 80 s")
	}
	bin := filepath.Join(t.TempDir(), "conventions")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ttl := func(tg *targets.Target) { tg.Conventions.KeyTTL = time.Second }
	probeOnly := func(tg *targets.Target) { tg.Effects.Ledger = targets.Ledger{} }
	transfersOnly := func(tg *targets.Target) { tg.Policy.Idempotency.Operations = []string{"create-transfer"} }
	backoff := func(kind string, jitter float64) func(*targets.Target) {
		return func(tg *targets.Target) {
			tg.Policy.Retry.Backoff, tg.Policy.Retry.Jitter = targets.BackoffKind(kind), jitter
		}
	}
	for _, c := range []struct {
		name   string
		brk    string                // the service's -break
		spec   func(*targets.Target) // a change to target.yaml
		checks []string
		want   verdicts
	}{
		// Green, every suite: keys in X-Idem-Key as sf-strings, tenants acme
		// and globex bound to their bearer credential in X-Account, both
		// operations with their methods, the PUT /entries/* effect keyed by
		// X-Upstream-Key, the probe agreeing with the ledger, 400 for a
		// mismatch (stripe); budgets in grpc-timeout; three attempts with full
		// jitter, Retry-After honoured up to the deadline, a breaker.
		{name: "green", want: greenNotApplicable},

		// Every keyed request lacks the key the service reads: 400 each time.
		{name: "legacy-key-header", brk: "legacy-key-header", checks: idempotencyChecks, want: verdicts{
			"IK-03": fail, "IK-17a": fail, "IK-17b": fail, "IK-07": fail,
			"IK-04": incon, "IK-06": incon, "IK-13": incon, "IK-17p": incon}},
		// The ledger sees the service's own retry as a second, keyless entry.
		{name: "no-upstream-key", brk: "no-upstream-key", checks: idempotencyChecks, want: verdicts{"IK-17b": fail}},
		{name: "mismatch-422", brk: "mismatch-422", checks: idempotencyChecks, want: verdicts{"IK-06": fail}},
		// Tenant B gets tenant A's stored answer and makes no entry.
		{name: "shared-responses", brk: "shared-responses", checks: idempotencyChecks, want: verdicts{"IK-13": fail, "IK-17p": mayFail}},
		// Only the PUT operation breaks: caught because every operation is exercised.
		{name: "put-not-idempotent", brk: "put-not-idempotent", checks: idempotencyChecks, want: verdicts{
			"IK-04": fail, "IK-17a": fail, "IK-07": fail, "IK-06": fail, "IK-17p": mayFail}},
		// The probe disagrees with the ledger wherever a key was used.
		{name: "probe-off-by-one", brk: "probe-off-by-one", checks: idempotencyChecks, want: verdicts{
			"IK-03": fail, "IK-04": fail, "IK-17a": fail, "IK-17b": fail, "IK-07": fail, "IK-06": fail, "IK-13": fail, "IK-17p": fail}},
		{name: "ignore-grpc-timeout", brk: "ignore-grpc-timeout", checks: deadlineChecks, want: verdicts{
			"HS-18": fail, "DL-03": fail, "DL-04": fail, "DL-06": fail, "DL-06b": fail, "DL-04g": na}},
		{name: "ignore-retry-after", brk: "ignore-retry-after", checks: retryAfterChecks, want: verdicts{
			"HS-08": fail, "RL-10": fail, "HS-03": fail}},

		{name: "key-optional", brk: "key-optional", checks: []string{"IK-05", "IK-03"}, want: verdicts{"IK-05": fail}},
		{name: "long-key-500", brk: "long-key-500", checks: []string{"IK-14", "IK-03"}, want: verdicts{"IK-14": fail}},
		// The hanging ledger holds a request without a budget for an hour.
		{name: "no-default-deadline", brk: "no-default-deadline", checks: []string{"HS-18b", "DL-04"}, want: verdicts{"HS-18b": fail}},
		{name: "retry-after-past-deadline", brk: "retry-after-past-deadline", checks: []string{"HS-10", "HS-08"}, want: verdicts{"HS-10": fail}},
		{name: "invalid-retry-after-stops", brk: "invalid-retry-after-stops", checks: []string{"HS-09", "HS-08"}, want: verdicts{"HS-09": fail}},

		// The spec declares a backoff the service does not use: the formula's
		// check fails, full jitter's is not applicable.
		{name: "declares-equal", spec: backoff("equal", 0), checks: formulaChecks, want: verdicts{"BO-01": na, "BO-02": fail, "BO-03": na, "BO-04": na}},
		{name: "declares-decorrelated", spec: backoff("decorrelated", 0), checks: formulaChecks, want: verdicts{"BO-01": na, "BO-02": na, "BO-03": fail, "BO-04": na}},
		{name: "declares-exponential", spec: backoff("exponential", 0.1), checks: formulaChecks, want: verdicts{"BO-01": na, "BO-02": na, "BO-03": na, "BO-04": fail}},

		// Spec fields: the probe alone counts effects (green, then one too
		// many: IK-07 counts differences and IK-13 at least two, which a
		// constant excess does not change).
		{name: "probe-only", spec: probeOnly, checks: idempotencyChecks, want: verdicts{}},
		{name: "probe-only/probe-off-by-one", brk: "probe-off-by-one", spec: probeOnly, checks: idempotencyChecks, want: verdicts{
			"IK-03": fail, "IK-04": fail, "IK-17a": fail, "IK-17b": fail, "IK-06": fail, "IK-17p": fail}},
		// A key TTL shorter than a check's reuse makes it not applicable.
		{name: "key-ttl-1s", spec: ttl, checks: idempotencyChecks, want: verdicts{
			"IK-04": na, "IK-17a": na, "IK-07": na, "IK-06": na, "IK-13": na, "IK-17p": na}},
		// The PUT is not declared keyed: its breakage is not judged.
		{name: "transfers-only/put-not-idempotent", brk: "put-not-idempotent", spec: transfersOnly, checks: idempotencyChecks, want: verdicts{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec, err := targets.Load("target.yaml")
			if err != nil {
				t.Fatal(err)
			}
			spec.Process.Command[0] = bin
			if c.brk != "" {
				spec.Process.Command = append(spec.Process.Command, "-break", c.brk)
			}
			if c.spec != nil {
				c.spec(spec)
			}
			var log strings.Builder
			res, err := certify.Run(context.Background(), certify.Config{Target: spec, Checks: c.checks, Seed: 9, TargetLog: &log})
			if err != nil {
				t.Fatalf("Run: %v\n%s", err, log.String())
			}
			for _, ch := range res.Report.Checks {
				allowed, ok := c.want[ch.ID]
				if !ok {
					allowed = []reports.Status{reports.StatusPass}
				}
				if !slices.Contains(allowed, ch.Status) {
					t.Errorf("%s %s, want %v: expected %s; observed %s%s", ch.ID, ch.Status, allowed, ch.Expected, ch.Observed, ch.Reason)
				}
				if strings.HasPrefix(c.name, "key-ttl") && ch.Status == reports.StatusNotApplicable && !strings.Contains(ch.Reason, "key_ttl") {
					t.Errorf("%s not applicable for another reason than the key TTL: %s", ch.ID, ch.Reason)
				}
			}
			if c.checks != nil && len(res.Report.Checks) != len(c.checks) {
				t.Errorf("%d checks ran, want %d", len(res.Report.Checks), len(c.checks))
			}
		})
	}
}
