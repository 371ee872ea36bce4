package idempotency

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"strings"

	"github.com/resilcheck/resilcheck/check"
)

func payloadMismatch(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	base := check.Call{Key: c.Key(), Tenant: c.Tenant(), Amount: c.Amount()}
	first := h.Send(ctx, base)
	if !h.Succeeded(first) {
		return check.Inconclusive("the first request did not succeed (%s)", check.Describe(first))
	}
	changed := base
	changed.Alt = true
	want := fmt.Sprintf("%d for the changed payload, again on an uncorrected retry (IK-08); still 1 effect", h.Conventions.MismatchCode())
	r := h.Send(ctx, changed)
	again := h.Send(ctx, changed)
	ef := c.Effects(ctx)
	switch {
	case r.Err != nil || r.Status != h.Conventions.MismatchCode():
		return check.Fail(want, fmt.Sprintf("the changed payload got %s, body %s", check.Describe(r), check.Excerpt(r.Body)), c.Evidence()...)
	case again.Err != nil || again.Status/100 != 4:
		return check.Fail(want, fmt.Sprintf("the uncorrected retry got %s", check.Describe(again)), c.Evidence()...)
	case ef.Total != 1:
		return check.Fail(want, fmt.Sprintf("%d effects", ef.Total), c.Evidence()...)
	}
	return check.Pass(want, fmt.Sprintf("%d, then %d; 1 effect", r.Status, again.Status), c.Evidence()...)
}

func missingKey(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	if h.Policy.KeyOptional {
		return check.NotApplicable("the target declares keys optional (policy.idempotency.key_required: false): the draft's 400 is for an operation requiring the header (§2.7)")
	}
	r := h.Send(ctx, check.Call{Tenant: c.Tenant(), Amount: c.Amount()})
	want := fmt.Sprintf("%d with a documentation link (problem+json type or Link rel=describedby); 0 effects", h.Conventions.MissingKeyCode())
	// A probe reads effects per key, so it cannot see a keyless request's:
	// without a ledger the effects are not counted, and the verdict says so.
	counted := !h.NoLedger
	if !counted {
		want = fmt.Sprintf("%d with a documentation link (problem+json type or Link rel=describedby); effects not counted (a probe reads them per key, and this request has none)", h.Conventions.MissingKeyCode())
	}
	var ef check.Effects
	if counted {
		ef = c.Effects(ctx)
	}
	switch {
	case r.Err != nil || r.Status != h.Conventions.MissingKeyCode():
		return check.Fail(want, fmt.Sprintf("%s, body %s", check.Describe(r), check.Excerpt(r.Body)), c.Evidence()...)
	case ef.Total != 0:
		return check.Fail(want, fmt.Sprintf("%d effects without a key", ef.Total), c.Evidence()...)
	case !hasDocLink(r):
		return check.Fail(want, fmt.Sprintf("%d without a documentation link, body %s", r.Status, check.Excerpt(r.Body)), c.Evidence()...)
	}
	if !counted {
		return check.Pass(want, fmt.Sprintf("%d with a documentation link; effects not counted without a ledger", r.Status), c.Evidence()...)
	}
	return check.Pass(want, fmt.Sprintf("%d with a documentation link, 0 effects", r.Status), c.Evidence()...)
}

// hasDocLink reports whether r links documentation: a Link header with
// rel=describedby, or a problem+json body whose type is a real URI.
func hasDocLink(r check.Reply) bool {
	for _, l := range r.Header.Values("Link") {
		if strings.Contains(strings.ToLower(l), `rel="describedby"`) || strings.Contains(strings.ToLower(l), "rel=describedby") {
			return true
		}
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "application/problem+json" {
		return false
	}
	var p struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(r.Body, &p) != nil {
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

func malformedKeys(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	want := "400 or normal handling for every malformed key; never a 5xx or a dropped connection"
	var seen []string
	for _, k := range malformedKeyCases {
		// Sent as is, and in the target's key format when that differs (an
		// sf-string key wraps the same content in quotes): a target must
		// survive both the bytes a parser sees and the values its store sees.
		forms := []bool{true}
		if h.Conventions.FormatKey(k.key) != k.key {
			forms = append(forms, false)
		}
		for _, raw := range forms {
			name := k.name
			if !raw {
				name += " (" + h.Conventions.KeyFormat + ")"
			}
			r := h.Send(ctx, check.Call{Key: k.key, RawKey: raw, Tenant: c.Tenant(), Amount: c.Amount()})
			if r.Err != nil || r.Status >= 500 {
				return check.Fail(want, fmt.Sprintf("key with %s: %s", name, check.Describe(r)), c.Evidence()...)
			}
			seen = append(seen, fmt.Sprintf("%s: %d", name, r.Status))
		}
	}
	return check.Pass(want, strings.Join(seen, ", "), c.Evidence()...)
}

func crossTenant(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	// The very same request from both tenants: only the tenant differs.
	key, amount := c.Key(), c.Amount()
	a := h.Send(ctx, check.Call{Key: key, Tenant: c.Tenant(), Amount: amount})
	if !h.Succeeded(a) {
		return check.Inconclusive("tenant A's request did not succeed (%s)", check.Describe(a))
	}
	b := h.Send(ctx, check.Call{Key: key, Tenant: c.Tenant(), Amount: amount})
	ef := c.Effects(ctx)
	want := "tenant B's request with A's key is processed as B's own (2 effects) or rejected; B never receives A's response"
	switch {
	case h.Succeeded(b) && ef.Total < 2:
		return check.Fail(want, fmt.Sprintf("tenant B got %d with no effect of its own: A's stored response, body %s", b.Status, check.Excerpt(b.Body)), c.Evidence()...)
	case h.Succeeded(b):
		return check.Pass(want, fmt.Sprintf("B processed on its own: %d, 2 effects", b.Status), c.Evidence()...)
	case b.Err != nil || b.Status >= 500:
		return check.Fail(want, fmt.Sprintf("tenant B got %s", check.Describe(b)), c.Evidence()...)
	}
	return check.Pass(want, fmt.Sprintf("B rejected with %d", b.Status), c.Evidence()...)
}
