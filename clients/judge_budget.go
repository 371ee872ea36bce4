package clients

import (
	"fmt"
	"net/http"
	"time"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/headers"
)

// judgeBudget (CL-12): a client that sends its remaining budget (a
// deadline header) sends less on each retry, by at least the time spent
// since the previous attempt, less the late slack.
func judgeBudget(j *judging) Verdict {
	want := fmt.Sprintf("each retry's budget ≤ the previous one minus the time since it, + %s", j.tol.Late)
	judged := 0
	for _, r := range j.ran() {
		for i := 0; i+1 < len(r.Attempts); i++ {
			a, b := r.Attempts[i], r.Attempts[i+1]
			va, okA := budget(a)
			vb, okB := budget(b)
			if !okA || !okB {
				continue
			}
			judged++
			spent := b.Received.Sub(a.Received)
			if vb > va-spent+j.tol.Late {
				return fail(want, fmt.Sprintf("%s: attempt %d sent %s, attempt %d %s later sent %s", r.id, i+1, va, i+2, spent.Round(time.Millisecond), vb), a, b)
			}
		}
	}
	if judged == 0 {
		return notApplicable("the client sent no deadline header (X-Request-Timeout-Ms, grpc-timeout, x-envoy-*-rq-timeout-ms) on two attempts of an operation")
	}
	return pass(want, fmt.Sprintf("%d retries sent a budget shrunk by the time spent", judged))
}

// budget reads the deadline header an attempt carried.
func budget(e faults.Entry) (time.Duration, bool) {
	h := http.Header{}
	for k, v := range e.Headers {
		h.Set(k, v)
	}
	d, ok, err := headers.Timeout(h)
	return d, ok && err == nil
}
