package ratelimit

import (
	"cmp"
	"net/http"
	"strings"

	"github.com/resilcheck/resilcheck/check"
)

// route matches the requests of one declared rate-limited route: a method
// and a path whose template parameters match any segment.
type route struct {
	method string
	fixed  []string // path segments; "" where the template puts a value
}

// limitedRoutes returns the routes the target declares rate limited: its
// probe (a GET) and its rate-limited operations.
func limitedRoutes(h *check.Harness) []route {
	var out []route
	if p := h.Policy.RateLimitProbe; p != "" {
		out = append(out, route{method: http.MethodGet, fixed: segments(p)})
	}
	for _, op := range h.Policy.RateLimited {
		// Rendered with two sets of values, segments that differ are parameters.
		a, errA := op.Prepare(check.Values{Key: "k-route-1", Tenant: "t-route-1", Amount: 1, Seq: 1}, false)
		b, errB := op.Prepare(check.Values{Key: "k-route-2", Tenant: "t-route-2", Amount: 2, Seq: 2}, false)
		if errA != nil || errB != nil {
			continue
		}
		sa, sb := segments(a.Path), segments(b.Path)
		if len(sa) != len(sb) {
			continue // a parameter spans segments: no request can be told to be this route's
		}
		for i := range sa {
			if sa[i] != sb[i] {
				sa[i] = ""
			}
		}
		out = append(out, route{method: cmp.Or(a.Method, http.MethodPost), fixed: sa})
	}
	return out
}

// matches reports whether a request of method to path is the route's.
func (r route) matches(method, path string) bool {
	ps := segments(path)
	if method != r.method || len(ps) != len(r.fixed) {
		return false
	}
	for i, f := range r.fixed {
		if f != "" && f != ps[i] {
			return false
		}
	}
	return true
}

func segments(path string) []string {
	path, _, _ = strings.Cut(path, "?")
	return strings.Split(path, "/")
}

func anyRoute(routes []route, method, path string) bool {
	for _, r := range routes {
		if r.matches(method, path) {
			return true
		}
	}
	return false
}
