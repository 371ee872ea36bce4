package certify

import (
	"cmp"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/targets"
)

// specOperation adapts the spec's first operation to the harness; the zero
// Operation for a spec that declares none (a consumer or a receiver alone).
func specOperation(t *targets.Target) check.Operation {
	if len(t.Operations) == 0 {
		return check.Operation{}
	}
	return withEffect(t, adaptOperation(t, t.Operations[0]))
}

// specKeyedOperations adapts the operations an idempotency key protects:
// those policy.idempotency.operations names, else every operation.
func specKeyedOperations(t *targets.Target) []check.Operation {
	var out []check.Operation
	for _, op := range t.Operations {
		if names := t.Policy.Idempotency.Operations; len(names) == 0 || slices.Contains(names, op.Name) {
			out = append(out, withEffect(t, adaptOperation(t, op)))
		}
	}
	return out
}

// withEffect sets the effectful call at the ledger's dependency: its
// method and path, or a gRPC dependency's method (a POST to its path).
func withEffect(t *targets.Target, so check.Operation) check.Operation {
	for _, d := range t.Dependencies {
		switch {
		case d.Name != t.Effects.Ledger.Dependency:
		case d.GRPC.Declared():
			so.EffectMethod, so.EffectPath = http.MethodPost, d.GRPC.Method
		default:
			so.EffectMethod, so.EffectPath = cmp.Or(d.Method, http.MethodPost), d.Path
		}
	}
	return so
}

// adaptOperation renders op, an operation of t, for the harness; a gRPC
// operation's body is encoded and framed as its call.
func adaptOperation(t *targets.Target, op targets.Operation) check.Operation {
	var codec *targets.GRPCCodec
	var codecErr error
	if op.GRPC.Declared() {
		// Validation compiled it once already, so an error is unlikely;
		// it surfaces on every request rather than being lost.
		codec, codecErr = op.GRPC.Compile(t.Dir)
	}
	return check.Operation{
		GRPC:         op.GRPC.Declared(),
		Name:         op.Name,
		KeyHeader:    op.KeyHeader,
		Method:       op.Method,
		Path:         op.Path,
		ContentType:  op.ContentType,
		Success:      op.Success,
		EffectMethod: http.MethodPost,
		Request: func(v check.Values, alt bool) (check.Request, error) {
			r, err := op.Render(targets.RequestValues{Key: v.Key, Amount: v.Amount, Tenant: v.Tenant, Seq: v.Seq}, alt)
			switch {
			case err == nil && codecErr != nil:
				err = fmt.Errorf("operation %s: grpc: %w", op.Name, codecErr)
			case err == nil && codec != nil:
				if m, ok := codec.Encoded(alt); ok {
					r.Body = m
				}
				r, err = codec.Request(r)
			}
			return check.Request{Method: r.Method, Path: r.Path, Header: r.Header, Body: r.Body}, err
		},
	}
}

// specConventions adapts the spec's dialect to the harness.
func specConventions(t *targets.Target) check.Conventions {
	var keyHeader string
	if len(t.Operations) > 0 {
		keyHeader = t.Operations[0].KeyHeader
	}
	c := check.Conventions{
		KeyHeader:      keyHeader,
		DependencyKey:  t.Effects.Ledger.KeyHeader,
		KeyFormat:      string(t.Conventions.KeyFormat),
		Profile:        string(t.Conventions.Profile),
		TenantHeader:   t.Tenancy.Header,
		DeadlineHeader: t.Conventions.DeadlineHeader,
		MaxBudget:      t.Conventions.MaxBudget,
		KeyTTL:         t.Conventions.KeyTTL,
		Tenants:        t.Tenancy.Tenants,
		TenantHeaders:  tenantHeaders(t),
	}
	if t.Tenancy.Disabled || t.Tenancy.Header == "" {
		c.TenantHeader = "-"
	}
	return c
}

// tenantHeaders renders tenancy.headers per tenant; validation rendered
// every template once, so an error here cannot happen for a valid spec.
func tenantHeaders(t *targets.Target) func(tenant string) http.Header {
	if len(t.Tenancy.Headers) == 0 {
		return nil
	}
	return func(tenant string) http.Header {
		hd, _ := t.Tenancy.TenantHeaders(tenant)
		return hd
	}
}

// specPolicy adapts the spec's policy section to the harness.
func specPolicy(t *targets.Target) check.Policy {
	r := t.Policy.Retry
	p := check.Policy{
		Retry: check.RetryPolicy{
			MaxAttempts: r.MaxAttempts, Backoff: string(r.Backoff), Base: r.Base, Cap: r.Cap,
			Jitter: r.Jitter, BudgetRatio: r.BudgetRatio, BreakerRecovery: r.BreakerRecovery,
		},
		DeadlineHeaders:  t.Policy.Deadlines.Headers,
		RateLimitProbe:   t.Policy.RateLimits.Probe,
		RateLimitHeaders: string(t.Policy.RateLimits.Headers),
		KeyOptional:      !t.Policy.Idempotency.KeyIsRequired(),
		Direct:           t.Service.Front == targets.FrontDirect,
		Hedging: check.HedgingPolicy{
			Delay: t.Policy.Hedging.Delay, MaxCopies: t.Policy.Hedging.MaxCopies, Budget: t.Policy.Hedging.Budget,
		},
		Throttling: check.ThrottlingPolicy{
			K: t.Policy.Throttling.K, MaxRejection: t.Policy.Throttling.MaxRejection, Recovery: t.Policy.Throttling.Recovery,
		},
	}
	for _, name := range t.Policy.RateLimits.Operations {
		if i := slices.IndexFunc(t.Operations, func(o targets.Operation) bool { return o.Name == name }); i >= 0 {
			p.RateLimited = append(p.RateLimited, adaptOperation(t, t.Operations[i]))
		}
	}
	return p
}

// journalHeaders lists the request headers the proxies journal: the
// defaults, and every header the spec names (keys, tenant, deadlines,
// operation headers), so checks see the target's own dialect.
func journalHeaders(t *targets.Target) []string {
	names := faults.DefaultRequestHeaders()
	add := func(h string) {
		if h != "" && !slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, h) }) {
			names = append(names, http.CanonicalHeaderKey(h))
		}
	}
	if !t.Tenancy.Disabled {
		add(t.Tenancy.Header)
	}
	for _, h := range slices.Sorted(maps.Keys(t.Tenancy.Headers)) {
		add(h)
	}
	add(t.Conventions.DeadlineHeader)
	for _, h := range t.Policy.Deadlines.Headers {
		add(h)
	}
	add(t.Effects.Ledger.KeyHeader)
	if t.Webhooks.Declared() {
		add("Webhook-Id") // the event id: a delivery's evidence, and the probe's key
		add(t.Webhooks.Effects.Ledger.KeyHeader)
	}
	if t.WebhookSender.Declared() {
		for _, h := range []string{"Webhook-Id", "Webhook-Timestamp", "Webhook-Signature"} {
			add(h) // every attempt's, for WS-01 and WS-02
		}
	}
	for _, o := range t.Operations {
		add(o.KeyHeader)
		for _, h := range slices.Sorted(maps.Keys(o.Headers)) {
			add(h)
		}
	}
	return names
}
