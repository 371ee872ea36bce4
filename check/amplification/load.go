package amplification

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/load"
)

// outage is one steady-rate run against a failing dependency: requests at
// rate through the front proxy while every effectful call fails as kind
// says, for outage, then recovery more of load with the dependency healthy.
type outage struct {
	rate             float64
	outage, recovery time.Duration
	kind             string
	shown            string // kind as the dependency shows it (kindText), once run

	start, healed time.Time
	front, calls  []faults.Entry // front exchanges and effectful dependency calls of the run
}

// runOutage heals the target, then drives o with the load package. It
// returns why the run is inconclusive (check.Undriven), or nil.
func runOutage(ctx context.Context, c *check.Case, o *outage) error {
	h := c.Harness
	if err := c.Heal(ctx, h.Policy.Retry.HealStreak(), h.HealWithin()); err != nil {
		return fmt.Errorf("before the outage: %w", err)
	}
	op, err := h.Operation.Prepare(check.Values{}, false)
	if err != nil {
		return err
	}
	var tenants []string
	for range 4 {
		tenants = append(tenants, c.Tenant()) // 4 buckets: the rate stays far below any per-tenant limit
	}
	spec := load.Spec{
		URL: h.TargetURL + op.Path, Method: op.Method,
		KeyHeader: h.Conventions.KeyHeaderName(), TenantHeader: h.Conventions.TenantHeaderName(),
		Pacing: load.Pacing{Rate: o.rate}, Duration: o.outage + o.recovery,
		Timeout: outageTimeout(h), Seed: c.KeySeed(), Name: c.ID,
		Build: h.LoadBuild(),
	}
	if spec.TenantHeader != "" {
		spec.Tenants = tenants
	}
	h.Settle(ctx)
	mark := rbMark(c)
	o.shown = kindText(h, o.kind)
	_, remove, err := c.Rule(h.Dependency, c.EffectMatch(0), failureFault(h, o.kind))
	if err != nil {
		return err
	}
	var once sync.Once
	heal := func() { once.Do(func() { remove(); o.healed = time.Now() }) }
	o.start = time.Now()
	if o.recovery > 0 {
		t := time.AfterFunc(o.outage, heal)
		defer t.Stop()
	}
	_, err = load.Run(ctx, spec, nil)
	h.Settle(ctx)
	heal()
	o.front, o.calls = frontCalls(c, mark), effectCalls(c, mark)
	switch {
	case err != nil:
		return err
	case len(o.front) == 0:
		return errors.New("no request reached the front proxy")
	}
	return nil
}

// unfelt is the verdict on a run whose outage failed none of the target's
// dependency calls in [from, to), or nil when it failed at least one: its
// retries say nothing of its budget. A target that made no matching call
// at all is inconclusive; one that made its calls only after the outage
// ended (on a loaded runner, one held up longer than the outage lasted)
// is judged again, as the runner's noise is the likely cause.
func (o *outage) unfelt(from, to time.Time) *check.Result {
	calls := 0
	for _, e := range o.calls {
		if e.Received.Before(from) || !e.Received.Before(to) {
			continue
		}
		if e.Rule != "" {
			return nil
		}
		calls++
	}
	if len(o.calls) == 0 {
		r := check.Inconclusive("the target made no dependency call matching its effect during the %s outage or after it: nothing to retry", cmp.Or(o.shown, o.kind))
		return &r
	}
	r := check.NoisyRunner("the %s outage of %s failed none of the target's dependency calls (%d made while it lasted, %d in all): the target never met it", cmp.Or(o.shown, o.kind), to.Sub(from).Round(time.Millisecond), calls, len(o.calls))
	return &r
}

// outageStatuses tell a caller that an upstream failed (502, 504: RFC 9110
// §15.6.3, §15.6.5) or to come back later (429, 503: RFC 6585 §4, RFC 9110
// §15.6.4). A 2xx, a client error, a 500 or a dropped connection misreport
// an outage the service saw.
var outageStatuses = []int{http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout}

// outageTimeout is how long a request under an outage is waited for: the
// target's own budget (it answers by then, whatever its retries) plus 1 s,
// at least 5 s, so the harness never gives up first.
func outageTimeout(h *check.Harness) time.Duration {
	return max(5*time.Second, h.Conventions.BudgetCap()+time.Second)
}

// outageAnswer names a front status, 0 being no answer at all.
func outageAnswer(status int) string {
	if status == 0 {
		return "nothing (the connection ended without a response)"
	}
	return fmt.Sprintf("%d %s", status, http.StatusText(status))
}

// retriesIn counts, among calls grouped by forwarded key, the repeated
// calls (retries) received in [from, to), and the requests received at the
// front in the same window.
func retriesIn(c *check.Case, o *outage, from, to time.Time) (retries, requests int) {
	in := func(t time.Time) bool { return !t.Before(from) && t.Before(to) }
	for _, g := range groupByKey(c, o.calls) {
		for _, e := range g[1:] {
			if in(e.Received) {
				retries++
			}
		}
	}
	for _, e := range o.front {
		if in(e.Received) {
			requests++
		}
	}
	return retries, requests
}

func oneLayer(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	limit := h.Policy.Retry.Attempts()
	want := fmt.Sprintf("while every dependency call fails: at most %s attempts per logical request (one layer's, not the product over layers; a hedged copy overlapping its attempt is no attempt of its own), and the caller told of the failure (429, 502, 503 or 504)", h.Policy.Retry.AttemptsText())
	// The outage starts with one request alone: under load, a breaker or a
	// retry budget the requests share can cut every schedule short once a
	// handful of calls failed, hiding retries multiplied over layers from
	// the per-request count (it did in about one run in eight).
	if err := c.Heal(ctx, h.Policy.Retry.HealStreak(), h.HealWithin()); err != nil {
		return check.Inconclusive("before the lone request: %v", err)
	}
	_, remove, err := c.Rule(h.Dependency, c.EffectMatch(0), failureFault(h, "503"))
	if err != nil {
		return check.Inconclusive("%v", err)
	}
	mark := h.Journal.LastSeq()
	key := c.Key()
	r, lone := logicalRequests(ctx, c, check.Call{Key: key, Tenant: c.Tenant(), Amount: c.Amount()})
	remove()
	// Attempts, not calls: a hedged copy that overlaps its attempt is no
	// retry (RB-01 counts so too).
	if a := len(h.Attempts(lone)); a > limit {
		return check.Fail(want, fmt.Sprintf("a request sent alone as the outage began reached the dependency in %d attempts (%d calls, key %s), client got %s: more than one layer retries",
			a, len(lone), keyList(h, lone[:1]), check.Describe(r)), c.Evidence()...)
	}
	if layers := retryingLayers(c, mark, key, lone); len(layers) > 1 {
		return check.Fail(want, fmt.Sprintf("a request sent alone as the outage began: %s, client got %s: more than one layer retries",
			strings.Join(layers, "; "), check.Describe(r)), c.Evidence()...)
	}
	o := &outage{rate: float64(8 + c.IntN(5)), outage: 800*time.Millisecond + time.Duration(c.IntN(300))*time.Millisecond, kind: "503"}
	if err := runOutage(ctx, c, o); err != nil {
		return check.Undriven(err)
	}
	var worst []faults.Entry
	n := 0
	for _, g := range groupByKey(c, o.calls) {
		if a := len(h.Attempts(g)); a > n {
			worst, n = g, a
		}
	}
	if n > limit {
		return check.Fail(want, fmt.Sprintf("%d requests at %.0f/s: one logical request reached the dependency in %d attempts (%d calls, key %s): more than one layer retries",
			len(o.front), o.rate, n, len(worst), keyList(h, worst[:1])), append(worst, o.front...)...)
	}
	for _, e := range o.front {
		if st := check.AnswerStatus(e); !slices.Contains(outageStatuses, st) {
			return check.Fail(want, fmt.Sprintf("a request answered %s during the outage instead of a gateway error or a back-off signal", outageAnswer(st)), e)
		}
	}
	return check.Pass(want, fmt.Sprintf("one request alone: %d calls; then %d requests at %.0f/s over %s: at most %d attempts per request (%d calls in all), every answer a gateway error or a back-off signal",
		len(lone), len(o.front), o.rate, o.outage, n, len(o.calls)), c.Evidence()...)
}

// retryingLayers names the tiers of a multi-tier target that retried one
// request sent alone after mark: each whose hop to the next carried more
// attempts of it than it received (hedged copies, overlapping, are one
// attempt), and the last if the dependency saw more attempts than the
// last tier received requests.
func retryingLayers(c *check.Case, mark uint64, key string, calls []faults.Entry) []string {
	h := c.Harness
	op, err := h.Operation.Prepare(check.Values{}, false)
	if len(h.Hops) == 0 || err != nil {
		return nil
	}
	carried := h.HopEntries(mark, op.Method, h.Conventions.FormatKey(key))
	var layers []string
	above := 1
	for i, hp := range h.Hops {
		n := len(check.Attempts(carried[i]))
		if above > 0 && n > above {
			layers = append(layers, fmt.Sprintf("%s re-sent it (%d attempts on the hop %s for %d)", hp.From, n, hp.Name(), above))
		}
		above = len(carried[i])
	}
	if attempts := len(h.Attempts(calls)); above > 0 && attempts > above {
		layers = append(layers, fmt.Sprintf("%s retried (%d dependency attempts for %d requests)", h.Hops[len(h.Hops)-1].To, attempts, above))
	}
	return layers
}

func outageAmplification(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	o := &outage{rate: float64(15 + c.IntN(10)), outage: time.Second + time.Duration(c.IntN(400))*time.Millisecond, kind: []string{"503", "reset"}[c.IntN(2)]}
	if err := runOutage(ctx, c, o); err != nil {
		return check.Undriven(err)
	}
	if r := o.unfelt(o.start, o.healed); r != nil {
		return *r
	}
	cfg, ratio := config(h), h.Policy.Retry.Ratio()
	n := len(o.front)
	limit := (1+ratio)*float64(n) + float64(cfg.retryFloor())
	want := fmt.Sprintf("dependency calls ≤ (1 + %s)·requests + %d during a sustained outage (SRE: ≈1.1× with a retry budget, ≈3× without)", h.Policy.Retry.RatioText(), cfg.retryFloor())
	obs := fmt.Sprintf("%s outage of %s at %.0f req/s: %d requests, %d dependency calls (amplification %.2f, limit %.1f calls)",
		o.kind, o.outage, o.rate, n, len(o.calls), float64(len(o.calls))/float64(n), limit)
	if float64(len(o.calls)) > limit {
		return check.Fail(want, obs, c.Evidence()...)
	}
	return check.Pass(want, obs, c.Evidence()...)
}

func outageRecovery(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	cfg := config(h)
	within, why := judgedRecovery(h)
	recovery := time.Second // undeclared: long enough to see a storm after healing
	if why == "" {
		recovery = within + 600*time.Millisecond
	}
	o := &outage{rate: float64(15 + c.IntN(10)), outage: time.Second + time.Duration(c.IntN(300))*time.Millisecond,
		recovery: recovery, kind: []string{"503", "reset"}[c.IntN(2)]}
	if err := runOutage(ctx, c, o); err != nil {
		return check.Undriven(err)
	}
	end := time.Now()
	if err := c.Heal(ctx, h.Policy.Retry.HealStreak(), h.HealWithin()); err != nil { // leave the target healthy for what follows
		return check.Inconclusive("after recovery: %v", err)
	}
	if r := o.unfelt(o.start, o.healed); r != nil {
		return *r
	}
	ratio, floor := h.Policy.Retry.Ratio(), cfg.retryFloor()
	budget := func(_ time.Duration, requests int) float64 {
		return ratio*float64(requests) + float64(floor)
	}
	want := fmt.Sprintf("retries ≤ %s·requests + %d in the outage, and again in the recovery that follows (the retry budget)", h.Policy.Retry.RatioText(), floor)
	if why == "" {
		want += fmt.Sprintf("; requests sent %s (the declared breaker recovery) after the dependency heals succeed (≥ 90%%)", within)
	}
	outRetries, outReqs := retriesIn(c, o, o.start, o.healed)
	recRetries, recReqs := retriesIn(c, o, o.healed, end)
	obs := fmt.Sprintf("%s outage of %s at %.0f req/s: %d retries for %d requests (budget %.1f); recovery: %d retries for %d requests (budget %.1f)",
		o.kind, o.healed.Sub(o.start).Round(time.Millisecond), o.rate, outRetries, outReqs, budget(o.healed.Sub(o.start), outReqs),
		recRetries, recReqs, budget(end.Sub(o.healed), recReqs))
	switch {
	case float64(outRetries) > budget(o.healed.Sub(o.start), outReqs):
		return check.Fail(want, obs+": retries did not fall off during the outage", c.Evidence()...)
	case float64(recRetries) > budget(end.Sub(o.healed), recReqs):
		return check.Fail(want, obs+": a retry storm after recovery", c.Evidence()...)
	case why != "":
		return check.Pass(want, obs+"; recovery time not judged: "+why, c.Evidence()...)
	}
	return judgeRecovery(c, o, within, want, obs)
}

// recoveryJudged returns the declared breaker recovery RB-05 holds the
// target to, or why it judges none.
func judgedRecovery(h *check.Harness) (time.Duration, string) {
	d := h.Policy.Retry.BreakerRecovery
	switch {
	case d <= 0:
		return 0, "the target declares no breaker recovery (policy.retry.breaker_recovery)"
	case d > config(h).maxRecovery():
		return 0, fmt.Sprintf("the declared breaker recovery %s exceeds the %s this check watches under load (amplification.Config.MaxRecovery)", d, config(h).maxRecovery())
	}
	return d, ""
}

// judgeRecovery holds the requests sent within after healing to succeeding.
func judgeRecovery(c *check.Case, o *outage, within time.Duration, want, obs string) check.Result {
	var late, ok int
	var failed []string
	for _, e := range o.front {
		if e.Received.Before(o.healed.Add(within)) {
			continue
		}
		late++
		if st := check.AnswerStatus(e); c.Harness.Succeeded(check.Reply{Status: st}) {
			ok++
		} else if len(failed) < 5 {
			failed = append(failed, fmt.Sprint(st))
		}
	}
	if late < 3 {
		return check.Inconclusive("only %d requests were sent %s after the dependency healed", late, within)
	}
	obs += fmt.Sprintf("; %d of %d requests sent %s after healing succeeded", ok, late, within)
	if float64(ok) < 0.9*float64(late) {
		return check.Fail(want, obs+" (failures: "+strings.Join(failed, ", ")+"): calls did not come back", c.Evidence()...)
	}
	return check.Pass(want, obs, c.Evidence()...)
}
