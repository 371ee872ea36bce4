package targets

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

func (v *validator) checkOperations() {
	ops := v.t.Operations
	if len(ops) == 0 && !v.t.QueueConsumer.Declared() && !v.t.Webhooks.Declared() {
		v.errf("operations", "at least one operation is required, e.g. {name: create-payment, path: /v1/payments, body: '{\"amount\": {{.Amount}}}'}; a queue consumer or webhook receiver alone (queue_consumer, webhooks) needs none")
	}
	seen := map[string]bool{}
	for i, o := range ops {
		p := fmt.Sprintf("operations[%d]", i)
		switch {
		case o.Name == "":
			v.errf(p+".name", "required; names the operation in reports")
		case seen[o.Name]:
			v.errf(p+".name", "duplicate operation name %q", o.Name)
		}
		seen[o.Name] = true
		v.checkOperation(p, o)
	}
}

func (v *validator) checkOperation(p string, o Operation) {
	if o.Method != "" {
		if msg := methodProblem(o.Method); msg != "" {
			v.errf(p+".method", "%s", msg)
		}
	}
	grpc := o.GRPC.Declared()
	switch {
	case grpc && (o.Path == "" || o.Path == o.GRPC.Method):
	case grpc:
		v.errf(p+".path", "a gRPC call goes to grpc.method %s; leave path out", o.GRPC.Method)
	case o.Path == "":
		v.errf(p+".path", "required; expected a path such as /v1/payments")
	case !strings.HasPrefix(o.Path, "/"):
		v.errf(p+".path", "expected a path starting with /, got %q", o.Path)
	default:
		v.template(p+".path", o.Path, sampleRequest)
	}
	bodyOK := v.template(p+".body", o.Body, sampleRequest)
	if o.AltBody != "" {
		v.template(p+".alt_body", o.AltBody, sampleRequest)
	} else if bodyOK && o.Body != "" {
		a, _ := Render(o.Body, sampleRequest)
		b, _ := Render(o.Body, RequestValues{Key: sampleRequest.Key, Amount: sampleRequest.Amount + 1, Tenant: sampleRequest.Tenant, Seq: 1})
		if a == b {
			v.errf(p+".body", "does not use {{.Amount}}, so no different payload can be derived for the mismatch checks; use .Amount or set alt_body")
		}
	}
	if grpc {
		v.checkGRPC(p, o, bodyOK)
	}
	if o.KeyHeader != "" {
		if msg := headerProblem(o.KeyHeader); msg != "" {
			v.errf(p+".key_header", "%s", msg)
		}
	}
	if o.ContentType != "" {
		if msg := mediaTypeProblem(o.ContentType); msg != "" {
			v.errf(p+".content_type", "%s", msg)
		}
	}
	v.headers(p+".headers", o.Headers)
	for j, s := range o.Success {
		if s < 100 || s > 599 {
			v.errf(fmt.Sprintf("%s.success[%d]", p, j), "expected an HTTP status in 100-599, got %d", s)
		}
	}
}

func (v *validator) headers(path string, h map[string]string) {
	for _, k := range sortedKeys(h) {
		if msg := headerProblem(k); msg != "" {
			v.keyErrf(path+"."+k, "%s", msg)
			continue
		}
		v.template(path+"."+k, h[k], sampleRequest)
	}
}

func (v *validator) checkEffects() {
	e := v.t.Effects
	if isZero(e) {
		v.errf("effects", "declare how side effects are counted: ledger: {dependency: NAME} and/or probe: {url: ...}")
	}
	if l := e.Ledger; !isZero(l) {
		switch {
		case l.Dependency == "":
			v.errf("effects.ledger.dependency", "required; the name of a declared dependency (declared: %s)", orNone(v.deps))
		case !slices.Contains(v.deps, l.Dependency):
			v.errf("effects.ledger.dependency", "no dependency is named %q; declared: %s", l.Dependency, orNone(v.deps))
		}
		if l.KeyHeader != "" {
			if msg := headerProblem(l.KeyHeader); msg != "" {
				v.errf("effects.ledger.key_header", "%s", msg)
			}
		}
	}
	v.checkProbe("effects.probe", e.Probe)
}

// checkProbe checks the probe p written at at (effects.probe, webhooks.effects.probe).
func (v *validator) checkProbe(at string, p Probe) {
	if isZero(p) {
		return
	}
	if p.Method != "" {
		if msg := methodProblem(p.Method); msg != "" {
			v.errf(at+".method", "%s", msg)
		}
	}
	if p.URL == "" {
		v.errf(at+".url", "required when probe is set; e.g. /v1/payments?key={{.Key}}")
	} else if v.template(at+".url", p.URL, sampleRequest) {
		u, _ := Render(p.URL, sampleRequest)
		if msg := pathOrURLProblem(u); msg != "" {
			v.errf(at+".url", "%s", msg)
		}
	}
	v.headers(at+".headers", p.Headers)
	if _, err := ParseCountPath(p.Count); err != nil {
		v.errf(at+".count", "%s", strings.TrimPrefix(err.Error(), "targets: "))
	}
}

func (v *validator) checkTenancy() {
	tn := v.t.Tenancy
	if tn.Header != "" {
		if msg := headerProblem(tn.Header); msg != "" {
			v.errf("tenancy.header", "%s", msg)
		}
	}
	v.headers("tenancy.headers", tn.Headers)
	if len(tn.Tenants) == 1 {
		v.errf("tenancy.tenants", "the two-tenant checks need at least two tenants, got 1")
	}
	seen := map[string]bool{}
	for i, name := range tn.Tenants {
		p := fmt.Sprintf("tenancy.tenants[%d]", i)
		switch {
		case strings.TrimSpace(name) == "" || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
			v.errf(p, "expected a tenant name usable as a header value, got %q", name)
		case seen[name]:
			v.errf(p, "duplicate tenant %q", name)
		}
		seen[name] = true
	}
}

// deadlineHeaders are the deadline headers the harness speaks.
var deadlineHeaders = []string{DeadlineRequestTimeoutMs, DeadlineGRPCTimeout, DeadlineEnvoyUpstream, DeadlineEnvoyExpected}

func (v *validator) checkConventions() {
	c := v.t.Conventions
	switch c.Profile {
	case "", ProfileIETF, ProfileStripe:
	default:
		v.errf("conventions.profile", "unknown profile %q; expected ietf or stripe", c.Profile)
	}
	switch c.KeyFormat {
	case "", KeyToken, KeySFString:
	default:
		v.errf("conventions.key_format", "unknown key format %q; expected token or sf-string", c.KeyFormat)
	}
	if c.DeadlineHeader != "" && !containsFold(deadlineHeaders, c.DeadlineHeader, true) {
		v.errf("conventions.deadline_header", "unsupported deadline header %q; expected one of: %s",
			c.DeadlineHeader, strings.Join(deadlineHeaders, ", "))
	}
	v.positive("conventions.key_ttl", c.KeyTTL, c.KeyTTL < 0)
	v.positive("conventions.max_budget", c.MaxBudget, c.MaxBudget < 0)
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
