package headers

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Form says which revision of the IETF rate-limit draft a value was written in.
type Form string

// The forms the parsers recognise: draft -10 and the older revisions still deployed.
const (
	// FormDraft10 is -08 to -10: Lists of named (String) items with parameters.
	FormDraft10 Form = "draft-10"
	// FormDraft07 is -07's RateLimit Dictionary `limit=100, remaining=50, reset=5`.
	FormDraft07 Form = "draft-07"
	// FormDraft06 is ≤ -06's separate RateLimit-Limit, -Remaining and -Reset fields.
	FormDraft06 Form = "draft-06"
	// FormIntegerPolicy is the -04 to -07 RateLimit-Policy of Integer items `10;w=1`.
	FormIntegerPolicy Form = "draft-04..07 policy"
)

// Quota units registered by draft -10 §10.3 (RL-03).
const (
	UnitRequests           = "requests"
	UnitContentBytes       = "content-bytes"
	UnitConcurrentRequests = "concurrent-requests"
)

// MaxResetSeconds is the largest reset (t) taken as delay-seconds; anything
// larger is an epoch timestamp misused (draft -10 §4.1.2 wants delay-seconds;
// a resilcheck heuristic).
const MaxResetSeconds = 1_000_000_000

// Policy is one quota policy of RateLimit-Policy.
type Policy struct {
	Form         Form
	Name         string        // the policy's name; "" in the older integer form
	Quota        int64         // q: quota units per window
	Unit         string        // qu; UnitRequests when absent
	Window       time.Duration // w in whole seconds, at most MaxDelay; 0 when absent (-10 leaves it optional)
	PartitionKey []byte        // pk; nil when absent
	Warnings     []string      // non-fatal findings: unknown unprefixed parameters (RL-05), "request" (RL-03 erratum)
}

// Limit is one item of RateLimit: what is left of a policy.
type Limit struct {
	Form         Form
	Name         string        // the policy it reports on; "" in older forms
	Remaining    int64         // r
	Reset        time.Duration // t in whole seconds; meaningful when HasReset
	HasReset     bool
	Quota        int64 // -07 `limit` or -06 RateLimit-Limit; 0 in draft -10 (see the Policy)
	PartitionKey []byte
	Warnings     []string
}

// ParseRateLimitPolicy parses a RateLimit-Policy value: the draft -10 List of
// named policies (RL-01..RL-04), or the -04..-07 Integer form `10;w=1`
// (reported as FormIntegerPolicy). Every violation found is returned, joined,
// as *FieldError (see Violations); on error the policies are nil.
func ParseRateLimitPolicy(v string) ([]Policy, error) {
	vs := &violations{field: RateLimitPolicy, value: v}
	l, err := ParseList(v)
	switch {
	case err != nil:
		vs.wrap("RL-01", err, "not a Structured Field List")
		return nil, vs.err()
	case len(l) == 0:
		vs.add("RL-01", "empty: a policy List has at least one member")
		return nil, vs.err()
	}
	if allIntegers(l) {
		return integerPolicies(l, vs)
	}
	var out []Policy
	for i, m := range l {
		if p, ok := namedPolicy(i, m, vs); ok {
			out = append(out, p)
		}
	}
	if err := vs.err(); err != nil {
		return nil, err
	}
	return out, nil
}

func namedPolicy(i int, m Member, vs *violations) (Policy, bool) {
	name, ok := m.Value.(string)
	if m.IsInner || !ok {
		vs.add("RL-01", "member %d is %s, not a String policy name", i+1, describeBare(m))
		return Policy{}, false
	}
	p := Policy{Form: FormDraft10, Name: name, Unit: UnitRequests}
	q, ok := m.Params.Get("q")
	switch n, isInt := q.(int64); {
	case !ok:
		vs.add("RL-01", "policy %q has no q (quota) parameter", name)
	case !isInt || n < 0:
		vs.add("RL-01", "policy %q: q=%s is not a non-negative Integer", name, describeValue(q))
	default:
		p.Quota = n
	}
	if w, ok := m.Params.Get("w"); ok {
		if n, isInt := w.(int64); !isInt || n <= 0 {
			vs.add("RL-02", "policy %q: w=%s is not a non-zero, non-negative Integer of seconds", name, describeValue(w))
		} else {
			p.Window = unitDelay(n, time.Second)
		}
	}
	if qu, ok := m.Params.Get("qu"); ok {
		switch s, isStr := qu.(string); {
		case !isStr:
			vs.add("RL-03", "policy %q: qu=%s is not a String", name, describeValue(qu))
		case s == "request":
			p.Unit = UnitRequests
			p.Warnings = append(p.Warnings, `qu="request" is the registry's singular spelling; §3.1.2 says "requests"`)
		case s == UnitRequests || s == UnitContentBytes || s == UnitConcurrentRequests:
			p.Unit = s
		default:
			vs.add("RL-03", "policy %q: qu=%q is not a registered quota unit", name, s)
		}
	}
	p.PartitionKey = partitionKey(m.Params, name, vs)
	p.Warnings = append(p.Warnings, unknownParams(m.Params, "q", "qu", "w", "pk")...)
	return p, true
}

func integerPolicies(l []Member, vs *violations) ([]Policy, error) {
	var out []Policy
	for i, m := range l {
		n := m.Value.(int64)
		p := Policy{Form: FormIntegerPolicy, Quota: n, Unit: UnitRequests}
		if n < 0 {
			vs.add("RL-01", "policy %d: quota %d is negative", i+1, n)
		}
		switch w, ok := m.Params.Get("w"); {
		case !ok:
			vs.add("RL-02", "policy %d: the integer form needs w", i+1)
		default:
			if s, isInt := w.(int64); !isInt || s <= 0 {
				vs.add("RL-02", "policy %d: w=%s is not a non-zero, non-negative Integer of seconds", i+1, describeValue(w))
			} else {
				p.Window = unitDelay(s, time.Second)
			}
		}
		out = append(out, p)
	}
	if err := vs.err(); err != nil {
		return nil, err
	}
	return out, nil
}

func partitionKey(ps Params, name string, vs *violations) []byte {
	pk, ok := ps.Get("pk")
	if !ok {
		return nil
	}
	b, isBytes := pk.([]byte)
	if !isBytes {
		vs.add("RL-04", "policy %q: pk=%s is not a Byte Sequence", name, describeValue(pk))
	}
	return b
}

// unknownParams lists parameters that are neither known nor vendor-prefixed
// (RL-05: other parameters are comments and carry a vendor prefix).
func unknownParams(ps Params, known ...string) []string {
	var out []string
	for _, p := range ps {
		if !slices.Contains(known, p.Key) && !strings.Contains(p.Key, "-") {
			out = append(out, fmt.Sprintf("parameter %q is neither defined nor vendor-prefixed (RL-05)", p.Key))
		}
	}
	return out
}

func allIntegers(l []Member) bool {
	for _, m := range l {
		if _, ok := m.Value.(int64); m.IsInner || !ok {
			return false
		}
	}
	return true
}

// describeBare names what a member holds, for messages.
func describeBare(m Member) string {
	if m.IsInner {
		return "an Inner List"
	}
	return describeValue(m.Value)
}

func describeValue(v any) string {
	switch v := v.(type) {
	case int64:
		return fmt.Sprintf("Integer %d", v)
	case float64:
		return fmt.Sprintf("Decimal %g", v)
	case string:
		return fmt.Sprintf("String %q", v)
	case Token:
		return fmt.Sprintf("Token %s", v)
	case []byte:
		return "a Byte Sequence"
	case bool:
		return fmt.Sprintf("Boolean %v", v)
	case Date:
		return fmt.Sprintf("Date %d", v)
	case DisplayString:
		return fmt.Sprintf("Display String %q", v)
	}
	return fmt.Sprintf("%T", v)
}
