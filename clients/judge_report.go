package clients

import (
	"fmt"
	"strings"

	"github.com/resilcheck/resilcheck/check"
)

// judgeReport (CL-09): a call reports success exactly when its last attempt
// was answered 2xx. A call the harness cut reported nothing: with a
// declared deadline it is the deadline checks' failure, without one what
// it would have reported is unknown, and the check is inconclusive unless
// another call fails it.
func judgeReport(j *judging) check.Result {
	const want = "success reported exactly when an attempt succeeded"
	judged := 0
	var cut []*ScenarioRun
	for _, r := range j.ran() {
		if r.Cut {
			cut = append(cut, r)
			continue
		}
		judged++
		if ok := r.succeeded(); ok != (r.Err == nil) {
			return check.Fail(want, fmt.Sprintf("%s: %s after %s", r.id, outcome(r), answers(r.Attempts)), r.Attempts...)
		}
	}
	switch {
	case judged == 0:
		return check.Inconclusive("every call was cut by the harness: nothing was reported (%s: %s)", cut[0].id, j.cutNote(cut[0]))
	case len(cut) > 0 && j.policy.Deadline == 0:
		return check.Inconclusive("%s: %s; what it would have reported is unknown%s (the %d other %s reported what the server did)", cut[0].id, j.cutNote(cut[0]), othersCut(cut), judged, plural(judged, "call"))
	case len(cut) > 0:
		return check.Pass(want, fmt.Sprintf("%d %s reported what the server did; the harness cut %s past the deadline, which CL-08 fails", judged, plural(judged, "call"), ids(cut)))
	}
	return check.Pass(want, fmt.Sprintf("%d calls reported what the server did", judged))
}

// othersCut names the calls the harness cut besides the first.
func othersCut(cut []*ScenarioRun) string {
	if len(cut) < 2 {
		return ""
	}
	return fmt.Sprintf("; it also cut %s", ids(cut[1:]))
}

// ids lists the runs' IDs.
func ids(runs []*ScenarioRun) string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = r.id
	}
	return strings.Join(out, ", ")
}

// judgeSameKey (CL-04): every attempt of a keyed operation carries the
// key its first attempt carried.
func judgeSameKey(j *judging) check.Result {
	h := j.policy.keyHeader()
	want := fmt.Sprintf("every attempt of a keyed operation carries the same %s", h)
	var ok, once, unretried []string
	sent := false
	for _, r := range j.ran() {
		// An operation is keyed when the harness gave it a key, or the
		// client drew one itself (an SDK keying every POST).
		if len(r.Attempts) == 0 || r.Call.Key == "" && r.Attempts[0].Header(h) == "" {
			continue
		}
		if !j.policy.retries(r.Call.Method) {
			unretried = append(unretried, r.Call.Method)
			continue
		}
		if r.Attempts[0].Header(h) != "" {
			sent = true
		}
		if len(r.Attempts) < 2 {
			once = append(once, r.id)
			continue
		}
		first := r.Attempts[0].Header(h)
		for i, e := range r.Attempts {
			if v := e.Header(h); v != first || v == "" {
				return check.Fail(want, fmt.Sprintf("%s: attempt 1 sent %q, attempt %d %q", r.id, first, i+1, v), r.Attempts...)
			}
		}
		ok = append(ok, fmt.Sprintf("%s (%d attempts)", r.id, len(r.Attempts)))
	}
	switch {
	case len(ok) == 0 && len(once) == 0 && len(unretried) > 0:
		return check.NotApplicable("the client declares it does not retry %s, the method of every keyed scenario", strings.Join(unretried, ", "))
	case !sent && len(ok) == 0:
		return check.NotApplicable("the client sent no %s", h)
	case len(ok) == 0:
		return check.Inconclusive("the client never retried a keyed operation (%s): no key reuse to judge", strings.Join(once, ", "))
	}
	return check.Pass(want, strings.Join(ok, ", "))
}
