package check

// Need is one thing a check requires of the target to apply: a dependency
// to fail, tenancy, a declared policy. Unmet returns why the target does not
// meet it, or "" when it does; the runner reports a check with an unmet need
// not applicable with that reason, without running it. Doc says in a phrase
// what the need is, for the catalogue.
type Need struct {
	Name  string
	Doc   string
	Unmet func(h *Harness) string
}

// Needs of the checks.
var (
	NeedDependency = Need{Name: "dependency",
		Doc: "the target declares a dependency, reached through the dependency proxy, so its calls can be failed, hung and counted",
		Unmet: func(h *Harness) string {
			if h.Dependency == nil {
				return "the target declares no dependency"
			}
			return ""
		}}
	NeedProxyTier = Need{Name: "proxy-tier",
		Doc: "a gateway or proxy may sit in front of the service (the spec does not declare service.front: direct)",
		Unmet: func(h *Harness) string {
			if h.Policy.Direct {
				return "the spec declares service.front: direct: no tier in front of the service to re-send a POST (RFC 9110 §9.2.2 binds proxies)"
			}
			return ""
		}}
	// NeedHTTPAnswers holds back the checks whose contract is a header or
	// body format of HTTP's own from a gRPC operation, which answers with
	// a status code in trailers (its back-off signal is
	// grpc-retry-pushback-ms, its documentation a google.rpc.Help).
	NeedHTTPAnswers = Need{Name: "http-answers",
		Doc: "the operation answers in HTTP's own terms (Retry-After, problem+json, Link), not as a gRPC call",
		Unmet: func(h *Harness) string {
			if h.Operation.GRPC {
				return "a gRPC operation answers with grpc-status in trailers: the HTTP header or body this check judges has no place in its answer"
			}
			return ""
		}}
	// NeedHTTPDependency and NeedGRPCDependency split the checks of a
	// dependency's back-off signal by its protocol: an HTTP dependency's is
	// Retry-After (seconds or an HTTP-date) beside RateLimit fields, a gRPC
	// one's grpc-retry-pushback-ms alone (gRFC A6), where a negative or
	// unparseable value means "do not retry".
	NeedHTTPDependency = Need{Name: "http-dependency",
		Doc: "the dependency speaks HTTP: its refusals carry Retry-After, as an HTTP-date too, and RateLimit fields",
		Unmet: func(h *Harness) string {
			if h.DependencyGRPC {
				return "the dependency is a gRPC service: its back-off signal is grpc-retry-pushback-ms, milliseconds alone, with no date form, no RateLimit fields, and a negative or unparseable value meaning no retry (gRFC A6)"
			}
			return ""
		}}
	NeedGRPCDependency = Need{Name: "grpc-dependency",
		Doc: "the dependency is a gRPC service (dependencies[].grpc), whose refusals carry grpc-retry-pushback-ms",
		Unmet: func(h *Harness) string {
			if !h.DependencyGRPC {
				return "the dependency speaks HTTP, not gRPC: no grpc-retry-pushback-ms to send"
			}
			return ""
		}}
	NeedTenancy = Need{Name: "tenancy",
		Doc: "the target scopes idempotency keys and quotas by a tenant (the spec's tenancy section is not disabled)",
		Unmet: func(h *Harness) string {
			if h.Conventions.TenantHeaderName() == "" {
				return "the target declares no tenancy"
			}
			return ""
		}}
)
