// Package gateway is the edge of resilcheck's reference stack: it routes the
// payments API to the payments service and enforces the edge contracts,
// namely a per-tenant rate limit that advertises itself truthfully
// (RateLimit, RateLimit-Policy, X-RateLimit-*), deadline propagation with its
// own elapsed time deducted, load shedding, and no retries of non-idempotent
// requests (RFC 9110 §9.2.2).
//
//	gw, err := gateway.New(gateway.WithServiceURL("http://127.0.0.1:8081"),
//		gateway.WithRateLimit(50, 50))
//	if err != nil { ... }
//	defer gw.Close()
//	http.Serve(ln, gw)
//
// Each switch in [defect.Set] that names the gateway breaks exactly one of
// these contracts; see [WithDefects]. README.md documents the problem types.
package gateway
