package certify

import (
	"cmp"
	"net/http"

	"github.com/resilcheck/resilcheck/suites"
	"github.com/resilcheck/resilcheck/targets"
)

// specOperation adapts the spec's first operation to the harness.
func specOperation(t *targets.Target) suites.Operation {
	op := t.Operations[0]
	so := suites.Operation{
		Method:       op.Method,
		Path:         op.Path,
		ContentType:  op.ContentType,
		Success:      op.Success,
		EffectMethod: http.MethodPost,
		Request: func(v suites.Values, alt bool) (suites.Request, error) {
			r, err := op.Render(targets.RequestValues{Key: v.Key, Amount: v.Amount, Tenant: v.Tenant, Seq: v.Seq}, alt)
			return suites.Request{Method: r.Method, Path: r.Path, Header: r.Header, Body: r.Body}, err
		},
	}
	for _, d := range t.Dependencies {
		if d.Name == t.Effects.Ledger.Dependency {
			so.EffectMethod, so.EffectPath = cmp.Or(d.Method, http.MethodPost), d.Path
		}
	}
	return so
}

// specConventions adapts the spec's dialect to the harness.
func specConventions(t *targets.Target) suites.Conventions {
	c := suites.Conventions{
		KeyHeader:      t.Operations[0].KeyHeader,
		DependencyKey:  t.Effects.Ledger.KeyHeader,
		KeyFormat:      string(t.Conventions.KeyFormat),
		Profile:        string(t.Conventions.Profile),
		TenantHeader:   t.Tenancy.Header,
		DeadlineHeader: t.Conventions.DeadlineHeader,
		MaxBudget:      t.Conventions.MaxBudget,
	}
	if t.Tenancy.Disabled || t.Tenancy.Header == "" {
		c.TenantHeader = "-"
	}
	return c
}
