package check

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/resilcheck/resilcheck/faults"
)

// refusedUnexercised are answers that say a request never reached the
// behaviour under test: a credential the target does not take, a path or
// method it does not serve.
var refusedUnexercised = []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusMethodNotAllowed}

// degenerate says why a pass proves nothing, or "": every answer the target
// itself gave in the case's window was a 401, 403, 404 or 405, so the
// check never exercised what it judges (a wrong path or credential in the
// spec makes checks that only forbid 5xx pass).
func (c *Case) degenerate() string {
	seen := map[int]int{}
	n := 0
	for _, e := range c.Harness.Journal.After(c.mark, faults.BySide("front")) {
		if e.Rule != "" || e.Outcome != faults.OutcomePassed || e.Status == 0 {
			continue // made up by a fault rule, or never answered
		}
		n++
		st := AnswerStatus(e) // a gRPC UNAUTHENTICATED is an HTTP 200
		if !slices.Contains(refusedUnexercised, st) {
			return ""
		}
		seen[st]++
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("degenerate run: all %d answers the target gave were refusals before the behaviour (%s): check the spec's paths, methods and credentials (tenancy.headers, operations[].headers)",
		n, statusCounts(seen))
}

func statusCounts(m map[int]int) string {
	var s string
	for _, st := range refusedUnexercised {
		if m[st] > 0 {
			if s != "" {
				s += ", "
			}
			s += fmt.Sprintf("%d× %d", m[st], st)
		}
	}
	return s
}
