package clients

import (
	"fmt"
	"net/http"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/headers"
)

// judgeBudget (CL-12): a client that sends a budget (a deadline header)
// never sends more than what remains of its declared deadline since the
// operation's first attempt, plus the late slack. A per-attempt budget
// (Envoy's min(per-try, remaining)) keeps it as well as the whole rest. A
// header no server can read (grpc-timeout without a unit, "1.5s" in a
// milliseconds header) fails: it propagates no budget at all.
func judgeBudget(j *judging) check.Result {
	want := fmt.Sprintf("every attempt's budget ≤ the deadline %s minus the time since the first attempt, + %s", j.policy.Deadline, j.tol.Late)
	judged := 0
	for _, r := range j.ran() {
		if len(r.Attempts) == 0 {
			continue
		}
		first := r.Attempts[0].Received
		for i, e := range r.Attempts {
			v, ok, err := budget(e)
			if err != nil {
				return check.Fail(want, fmt.Sprintf("%s: attempt %d sent a budget no server can read: %v", r.id, i+1, err), r.Attempts[:i+1]...)
			}
			if !ok {
				continue
			}
			judged++
			left := j.policy.Deadline - e.Received.Sub(first)
			if v > left+j.tol.Late {
				return check.Fail(want, fmt.Sprintf("%s: attempt %d, %s after the first, sent %s with %s left", r.id, i+1, e.Received.Sub(first).Round(time.Millisecond), v, left.Round(time.Millisecond)), r.Attempts[:i+1]...)
			}
		}
	}
	if judged == 0 {
		return check.NotApplicable("the client sent no deadline header (X-Request-Timeout-Ms, grpc-timeout, x-envoy-*-rq-timeout-ms)")
	}
	return check.Pass(want, fmt.Sprintf("%d attempts sent a budget within what remained", judged))
}

// budget reads the deadline header an attempt carried: whether it carried
// one, and an error when it did not parse.
func budget(e faults.Entry) (time.Duration, bool, error) {
	h := http.Header{}
	for k, v := range e.Headers {
		h.Set(k, v)
	}
	return headers.Timeout(h)
}
