package suites

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"strings"
)

func payloadMismatch(ctx context.Context, c *Case) Result {
	h := c.h
	base := call{key: c.key(), tenant: c.tenant(), amount: c.amount()}
	first := h.send(ctx, base)
	if !h.succeeded(first) {
		return inconclusive("the first request did not succeed (%s)", describe(first))
	}
	changed := base
	changed.alt = true
	want := fmt.Sprintf("%d for the changed payload, again on an uncorrected retry (IK-08); still 1 effect", h.Conventions.mismatchStatus())
	r := h.send(ctx, changed)
	again := h.send(ctx, changed)
	ef := c.effects(ctx)
	switch {
	case r.err != nil || r.status != h.Conventions.mismatchStatus():
		return fail(want, fmt.Sprintf("the changed payload got %s, body %s", describe(r), excerpt(r.body)), c.evidence()...)
	case again.err != nil || again.status/100 != 4:
		return fail(want, fmt.Sprintf("the uncorrected retry got %s", describe(again)), c.evidence()...)
	case ef.total != 1:
		return fail(want, fmt.Sprintf("%d effects", ef.total), c.evidence()...)
	}
	return pass(want, fmt.Sprintf("%d, then %d; 1 effect", r.status, again.status), c.evidence()...)
}

func missingKey(ctx context.Context, c *Case) Result {
	h := c.h
	if h.Policy.KeyOptional {
		return notApplicable("the target declares keys optional (policy.idempotency.key_required: false): the draft's 400 is for an operation requiring the header (§2.7)")
	}
	r := h.send(ctx, call{tenant: c.tenant(), amount: c.amount()})
	want := fmt.Sprintf("%d with a documentation link (problem+json type or Link rel=describedby); 0 effects", h.Conventions.missingKeyStatus())
	// A probe reads effects per key, so it cannot see a keyless request's:
	// without a ledger the effects are not counted, and the verdict says so.
	counted := !h.NoLedger
	if !counted {
		want = fmt.Sprintf("%d with a documentation link (problem+json type or Link rel=describedby); effects not counted (a probe reads them per key, and this request has none)", h.Conventions.missingKeyStatus())
	}
	var ef effects
	if counted {
		ef = c.effects(ctx)
	}
	switch {
	case r.err != nil || r.status != h.Conventions.missingKeyStatus():
		return fail(want, fmt.Sprintf("%s, body %s", describe(r), excerpt(r.body)), c.evidence()...)
	case ef.total != 0:
		return fail(want, fmt.Sprintf("%d effects without a key", ef.total), c.evidence()...)
	case !hasDocLink(r):
		return fail(want, fmt.Sprintf("%d without a documentation link, body %s", r.status, excerpt(r.body)), c.evidence()...)
	}
	if !counted {
		return pass(want, fmt.Sprintf("%d with a documentation link; effects not counted without a ledger", r.status), c.evidence()...)
	}
	return pass(want, fmt.Sprintf("%d with a documentation link, 0 effects", r.status), c.evidence()...)
}

// hasDocLink reports whether r links documentation: a Link header with
// rel=describedby, or a problem+json body whose type is a real URI.
func hasDocLink(r reply) bool {
	for _, l := range r.header.Values("Link") {
		if strings.Contains(strings.ToLower(l), `rel="describedby"`) || strings.Contains(strings.ToLower(l), "rel=describedby") {
			return true
		}
	}
	mt, _, _ := mime.ParseMediaType(r.header.Get("Content-Type"))
	if mt != "application/problem+json" {
		return false
	}
	var p struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(r.body, &p) != nil {
		return false
	}
	return p.Type != "" && p.Type != "about:blank"
}

// malformedKeyCases are keys a careless resource might crash on or echo.
var malformedKeyCases = []struct{ name, key string }{
	{"1024 characters", strings.Repeat("k", 1024)},
	{"embedded quote", `a"b`},
	{"SQL metacharacters", `' OR '1'='1`},
	{"NoSQL operator", `{"$gt": ""}`},
	{"path traversal", "../../../etc/passwd"},
	{"spaces", "a b c"},
	{"non-ASCII bytes", "clé-\xe9"},
}

func malformedKeys(ctx context.Context, c *Case) Result {
	h := c.h
	want := "400 or normal handling for every malformed key; never a 5xx or a dropped connection"
	var seen []string
	for _, k := range malformedKeyCases {
		// Sent as is, and in the target's key format when that differs (an
		// sf-string key wraps the same content in quotes): a target must
		// survive both the bytes a parser sees and the values its store sees.
		forms := []bool{true}
		if h.Conventions.formatKey(k.key) != k.key {
			forms = append(forms, false)
		}
		for _, raw := range forms {
			name := k.name
			if !raw {
				name += " (" + h.Conventions.KeyFormat + ")"
			}
			r := h.send(ctx, call{key: k.key, rawKey: raw, tenant: c.tenant(), amount: c.amount()})
			if r.err != nil || r.status >= 500 {
				return fail(want, fmt.Sprintf("key with %s: %s", name, describe(r)), c.evidence()...)
			}
			seen = append(seen, fmt.Sprintf("%s: %d", name, r.status))
		}
	}
	return pass(want, strings.Join(seen, ", "), c.evidence()...)
}

func crossTenant(ctx context.Context, c *Case) Result {
	h := c.h
	// The very same request from both tenants: only the tenant differs.
	key, amount := c.key(), c.amount()
	a := h.send(ctx, call{key: key, tenant: c.tenant(), amount: amount})
	if !h.succeeded(a) {
		return inconclusive("tenant A's request did not succeed (%s)", describe(a))
	}
	b := h.send(ctx, call{key: key, tenant: c.tenant(), amount: amount})
	ef := c.effects(ctx)
	want := "tenant B's request with A's key is processed as B's own (2 effects) or rejected; B never receives A's response"
	switch {
	case h.succeeded(b) && ef.total < 2:
		return fail(want, fmt.Sprintf("tenant B got %d with no effect of its own: A's stored response, body %s", b.status, excerpt(b.body)), c.evidence()...)
	case h.succeeded(b):
		return pass(want, fmt.Sprintf("B processed on its own: %d, 2 effects", b.status), c.evidence()...)
	case b.err != nil || b.status >= 500:
		return fail(want, fmt.Sprintf("tenant B got %s", describe(b)), c.evidence()...)
	}
	return pass(want, fmt.Sprintf("B rejected with %d", b.status), c.evidence()...)
}
