package clients

import (
	"fmt"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// judgeCap (CL-01): no operation makes more attempts than the declared cap.
// A hedging client's copies of an attempt (check.Attempts) are one attempt:
// CL-15 counts copies.
func judgeCap(j *judging) check.Result {
	want := fmt.Sprintf("at most %d attempts per operation", j.policy.MaxAttempts)
	most, retried := 0, false
	for _, r := range j.ran() {
		n := len(check.Attempts(r.Attempts))
		if n > j.policy.MaxAttempts {
			return check.Fail(want, fmt.Sprintf("%s: %d attempts (%d calls)", r.id, n, len(r.Attempts)), r.Attempts...)
		}
		most, retried = max(most, n), retried || n > 1
	}
	if !retried {
		return check.Inconclusive("the client never retried: no cap to judge")
	}
	return check.Pass(want, fmt.Sprintf("at most %d attempts", most))
}

// judgeUnkeyedPost (CL-05): an operation with a non-idempotent method and
// no key makes one attempt, whatever it is answered. A client that keys
// the request itself (an SDK drawing its own key) knows it is safe to
// repeat, as RFC 9110 §9.2.2 allows: CL-04 judges it instead.
func judgeUnkeyedPost(j *judging) check.Result {
	const want = "one attempt for a non-idempotent request without a key"
	var seen, keyed []string
	for _, r := range j.ran() {
		if r.Scenario.idempotent() || r.Call.Key != "" || len(r.Attempts) == 0 {
			continue
		}
		if r.Attempts[0].Header(j.policy.keyHeader()) != "" {
			keyed = append(keyed, r.id)
			continue
		}
		if len(r.Attempts) > 1 {
			return check.Fail(want, fmt.Sprintf("%s: %s retried %d times after %s", r.id, r.Call.Method, len(r.Attempts)-1, answer(r.Attempts[0])), r.Attempts...)
		}
		seen = append(seen, r.id)
	}
	if len(seen) == 0 && len(keyed) > 0 {
		return check.NotApplicable("the client sent its own %s on every non-idempotent request (%s)", j.policy.keyHeader(), strings.Join(keyed, ", "))
	}
	if len(seen) == 0 {
		return check.NotApplicable("no scenario sent a non-idempotent request without a key")
	}
	return check.Pass(want, "one attempt in "+strings.Join(seen, ", "))
}

// retryableStatus says whether a retry may cure a status (RFC 9110 §15.5:
// of the 4xx, only 408, 409 and 429 describe a transient condition).
func retryableStatus(st int) bool {
	return st < 400 || st == 408 || st == 409 || st == 429 || st >= 500
}

// judgeClientError (CL-06): nothing follows a 4xx other than 408, 409, 429.
func judgeClientError(j *judging) check.Result {
	const want = "no attempt after a 4xx other than 408, 409 and 429"
	var seen []string
	for _, r := range j.ran() {
		for i, e := range r.Attempts {
			if e.Status == 0 || retryableStatus(e.Status) {
				continue
			}
			if i+1 < len(r.Attempts) {
				return check.Fail(want, fmt.Sprintf("%s: attempt %d after %d", r.id, i+2, e.Status), r.Attempts[i:]...)
			}
			seen = append(seen, fmt.Sprintf("%s (%d)", r.id, e.Status))
		}
	}
	if len(seen) == 0 {
		return check.NotApplicable("no attempt was answered with a non-retryable 4xx")
	}
	return check.Pass(want, "no retry after "+strings.Join(seen, ", "))
}

// judgeRetried (CL-10, CL-11): an operation whose script a correct client
// can see through (the expected outcome is success) ends in a reported
// success with every scripted answer consumed. CL-11 judges the scripts
// that reset or stall an attempt, CL-10 those that answer with statuses.
// A call the harness cut fails where the client declares a deadline (it
// ran past it); without one, how it would have ended is unknown, and the
// check is inconclusive unless another call fails it.
func judgeRetried(connection bool) func(j *judging) check.Result {
	return func(j *judging) check.Result {
		var ok []string
		var cut []*ScenarioRun
		for _, r := range j.ran() {
			// A slow answer is a success to wait for (or hedge), not a
			// failure to retry.
			if r.Expect != ExpectSuccess || connectionFault(r.Scenario) != connection || r.Scenario.slow() {
				continue
			}
			if r.Cut && j.policy.Deadline == 0 {
				cut = append(cut, r)
				continue
			}
			want := fmt.Sprintf("%s: %d attempts, the last one succeeding, and a reported success", r.id, len(r.Scenario.Attempts)+1)
			switch n := len(r.Attempts); {
			case n <= len(r.Scenario.Attempts):
				return check.Fail(want, fmt.Sprintf("%d of %d scripted answers consumed (%s), then %s", n, len(r.Scenario.Attempts), answers(r.Attempts), outcome(r)), r.Attempts...)
			case r.Err != nil || r.Cut:
				return check.Fail(want, fmt.Sprintf("%s after %d attempts", outcome(r), n), r.Attempts...)
			}
			ok = append(ok, r.id)
		}
		if len(cut) > 0 {
			return check.Inconclusive("%s: %s; how it would have ended is unknown%s", cut[0].id, j.cutNote(cut[0]), othersCut(cut))
		}
		if len(ok) == 0 {
			return check.NotApplicable("no scenario of this kind is one the client's declared policy can see through: %s", j.policy)
		}
		return check.Pass("every scripted answer consumed and a reported success", strings.Join(ok, ", "))
	}
}

// connectionFault says whether some attempt of s is reset or stalled.
func connectionFault(s Scenario) bool {
	for _, st := range s.Attempts {
		if st.Fault != "" {
			return true
		}
	}
	return false
}

// answer describes what the server did to one attempt.
func answer(e faults.Entry) string {
	switch {
	case e.Status != 0 && e.ResponseHeader("Retry-After") != "":
		return fmt.Sprintf("%d (Retry-After: %s)", e.Status, e.ResponseHeader("Retry-After"))
	case e.Status != 0:
		return fmt.Sprint(e.Status)
	case !e.ClientGone.IsZero():
		return fmt.Sprintf("stalled until the client left after %s", e.ClientGone.Sub(e.Received).Round(time.Millisecond))
	}
	return "reset"
}

func answers(es []faults.Entry) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = answer(e)
	}
	if len(parts) == 0 {
		return "no attempt"
	}
	return strings.Join(parts, ", ")
}

// outcome describes how the client ended the call.
func outcome(r *ScenarioRun) string {
	switch {
	case r.Cut:
		return fmt.Sprintf("cut by the harness after %s", r.Took().Round(10*time.Millisecond))
	case r.Err != nil:
		return fmt.Sprintf("a reported failure (%v)", r.Err)
	}
	return "a reported success"
}
