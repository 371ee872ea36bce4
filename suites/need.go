package suites

// Need is one thing a check requires of the target to apply: a dependency
// to fail, tenancy, a declared policy. Unmet returns why the target does
// not meet it, or "" when it does.
type Need struct {
	Name  string
	Unmet func(h *Harness) string
}

// Needs of today's checks.
var (
	// needDependency: the target declares a dependency the harness stands
	// in front of, so its calls can be failed, hung and counted.
	needDependency = Need{Name: "dependency", Unmet: func(h *Harness) string {
		if h.Dependency == nil {
			return "the target declares no dependency"
		}
		return ""
	}}
	// needTenancy: the target scopes keys and quotas by a tenant header.
	needTenancy = Need{Name: "tenancy", Unmet: func(h *Harness) string {
		if h.Conventions.tenantHeader() == "" {
			return "the target declares no tenancy"
		}
		return ""
	}}
)
