package headers

import (
	"net/http"
	"slices"
	"strings"
	"time"
)

// Field names of the ≤ -06 draft form.
const (
	RateLimitLimit     = "RateLimit-Limit"
	RateLimitRemaining = "RateLimit-Remaining"
	RateLimitReset     = "RateLimit-Reset"
)

// ParseRateLimit parses a RateLimit value: the draft -10 List of named items
// (`"name";r=..;t=..;pk=:..:`, RL-07, RL-04) or the -07 Dictionary
// (`limit=100, remaining=50, reset=5`, reported as FormDraft07). A t above
// MaxResetSeconds is an epoch misused and an error. Every violation is
// returned, joined, as *FieldError; on error the limits are nil.
func ParseRateLimit(v string) ([]Limit, error) {
	vs := &violations{field: RateLimit, value: v}
	l, listErr := ParseList(v)
	if listErr == nil && len(l) > 0 && allStrings(l) {
		return namedLimits(l, vs)
	}
	if d, err := ParseDictionary(v); err == nil && isDraft07(d) {
		return draft07Limit(d, vs)
	}
	switch {
	case listErr != nil:
		vs.wrap("RL-07", listErr, "neither a draft -10 List nor a draft -07 Dictionary")
	case len(l) == 0:
		vs.add("RL-07", "empty: RateLimit has at least one item")
	default:
		for i, m := range l {
			if _, ok := m.Value.(string); m.IsInner || !ok {
				vs.add("RL-07", "member %d is %s, not a String policy name", i+1, describeBare(m))
			}
		}
	}
	return nil, vs.err()
}

func namedLimits(l []Member, vs *violations) ([]Limit, error) {
	var out []Limit
	for _, m := range l {
		name := m.Value.(string)
		lim := Limit{Form: FormDraft10, Name: name}
		r, ok := m.Params.Get("r")
		switch n, isInt := r.(int64); {
		case !ok:
			vs.add("RL-07", "item %q has no r (remaining) parameter", name)
		case !isInt || n < 0:
			vs.add("RL-07", "item %q: r=%s is not a non-negative Integer", name, describeValue(r))
		default:
			lim.Remaining = n
		}
		if t, ok := m.Params.Get("t"); ok {
			lim.Reset, lim.HasReset = resetSeconds(t, "item "+quote(name)+": t", vs)
		}
		lim.PartitionKey = partitionKey(m.Params, name, vs)
		lim.Warnings = unknownParams(m.Params, "r", "t", "pk")
		out = append(out, lim)
	}
	if err := vs.err(); err != nil {
		return nil, err
	}
	return out, nil
}

// resetSeconds checks a delay-seconds reset value (RL-07).
func resetSeconds(v any, what string, vs *violations) (time.Duration, bool) {
	switch n, isInt := v.(int64); {
	case !isInt || n < 0:
		vs.add("RL-07", "%s=%s is not a non-negative Integer of seconds", what, describeValue(v))
	case n > MaxResetSeconds:
		vs.add("RL-07", "%s=%d looks like an epoch timestamp; the reset is delay-seconds", what, n)
	default:
		return time.Duration(n) * time.Second, true
	}
	return 0, false
}

func isDraft07(d Dictionary) bool {
	for _, k := range []string{"limit", "remaining", "reset"} {
		if _, ok := d.Get(k); ok {
			return true
		}
	}
	return false
}

func draft07Limit(d Dictionary, vs *violations) ([]Limit, error) {
	lim := Limit{Form: FormDraft07, HasReset: true}
	for _, k := range []string{"limit", "remaining", "reset"} {
		m, ok := d.Get(k)
		n, isInt := m.Value.(int64)
		switch {
		case !ok:
			vs.add("RL-07", "the draft -07 form needs %s", k)
		case m.IsInner || !isInt || n < 0:
			vs.add("RL-07", "%s=%s is not a non-negative Integer", k, describeBare(m))
		case k == "limit":
			lim.Quota = n
		case k == "remaining":
			lim.Remaining = n
		default:
			lim.Reset, _ = resetSeconds(n, "reset", vs)
		}
	}
	for _, e := range d {
		if !slices.Contains([]string{"limit", "remaining", "reset"}, e.Key) {
			lim.Warnings = append(lim.Warnings, "unknown draft -07 key "+quote(e.Key))
		}
	}
	if err := vs.err(); err != nil {
		return nil, err
	}
	return []Limit{lim}, nil
}

// RateLimitFields is what a response's IETF rate-limit fields say, in
// whichever draft form they were written.
type RateLimitFields struct {
	Form     Form // the form of the limits, or of the policies when no RateLimit was sent
	Policies []Policy
	Limits   []Limit
}

// Present reports whether any IETF rate-limit field was found.
func (f RateLimitFields) Present() bool { return len(f.Policies) > 0 || len(f.Limits) > 0 }

// ParseRateLimitFields reads RateLimit-Policy and RateLimit, or the ≤ -06
// RateLimit-Limit/-Remaining/-Reset fields, from h. Field lines are combined
// as RFC 9110 §5.3 says. Errors are joined *FieldError values; what parsed
// cleanly is still returned alongside them.
func ParseRateLimitFields(h http.Header) (RateLimitFields, error) {
	var out RateLimitFields
	var errs violations
	if v, ok := combined(h, RateLimitPolicy); ok {
		ps, err := ParseRateLimitPolicy(v)
		out.Policies, out.Form = ps, FormDraft10
		if len(ps) > 0 {
			out.Form = ps[0].Form
		}
		errs.errs = append(errs.errs, err)
	}
	if v, ok := combined(h, RateLimit); ok {
		ls, err := ParseRateLimit(v)
		out.Limits, out.Form = ls, FormDraft10
		if len(ls) > 0 {
			out.Form = ls[0].Form
		}
		errs.errs = append(errs.errs, err)
	} else if lim, ok, err := draft06Limit(h); ok {
		out.Form = FormDraft06
		if err == nil {
			out.Limits = []Limit{lim}
		}
		errs.errs = append(errs.errs, err)
	}
	return out, errs.err()
}

// draft06Limit reads the ≤ -06 separate fields, if any is present.
func draft06Limit(h http.Header) (Limit, bool, error) {
	lim := Limit{Form: FormDraft06}
	vs := &violations{}
	found := false
	if v, ok := combined(h, RateLimitLimit); ok {
		found = true
		vs.field, vs.value = RateLimitLimit, v
		// ≤ -03 appended policies to the limit: `10, 10;w=1`; the first member is the limit.
		if l, err := ParseList(v); err != nil || len(l) == 0 {
			vs.wrap("RL-07", err, "not a List whose first member is an Integer")
		} else if n, ok := l[0].Value.(int64); !ok || l[0].IsInner || n < 0 {
			vs.add("RL-07", "the limit is %s, not a non-negative Integer", describeBare(l[0]))
		} else {
			lim.Quota = n
		}
	}
	if v, ok := combined(h, RateLimitRemaining); ok {
		found = true
		vs.field, vs.value = RateLimitRemaining, v
		if it, err := ParseItem(v); err != nil {
			vs.wrap("RL-07", err, "not an Integer")
		} else if n, ok := it.Value.(int64); !ok || n < 0 {
			vs.add("RL-07", "remaining is %s, not a non-negative Integer", describeValue(it.Value))
		} else {
			lim.Remaining = n
		}
	}
	if v, ok := combined(h, RateLimitReset); ok {
		found = true
		vs.field, vs.value = RateLimitReset, v
		if it, err := ParseItem(v); err != nil {
			vs.wrap("RL-07", err, "not an Integer")
		} else {
			lim.Reset, lim.HasReset = resetSeconds(it.Value, "reset", vs)
		}
	}
	return lim, found, vs.err()
}

// combined joins the field lines of name, as a recipient must for a List.
func combined(h http.Header, name string) (string, bool) {
	vs := h.Values(name)
	if len(vs) == 0 {
		return "", false
	}
	return strings.Join(vs, ", "), true
}

func allStrings(l []Member) bool {
	for _, m := range l {
		if _, ok := m.Value.(string); m.IsInner || !ok {
			return false
		}
	}
	return true
}

func quote(s string) string { return `"` + s + `"` }
