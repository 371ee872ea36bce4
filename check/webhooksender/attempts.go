package webhooksender

import (
	"crypto/hmac"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/check/webhooks"
	"github.com/resilcheck/resilcheck/faults"
)

// attempt is one delivery of the case's event as the endpoint's proxy
// journaled it.
type attempt struct {
	at     time.Time // request received
	id     string    // webhook-id
	ts     string    // webhook-timestamp
	sig    string    // webhook-signature
	digest string    // the body's journal digest
	status int       // what the endpoint answered; 0 for a reset or timeout
	entry  faults.Entry
}

// attemptsOf picks the attempts of the case's event from es (the endpoint
// side since the trigger), in the order they were received: the deliveries
// whose body is that of the first delivery with a body not in seen (bodies
// delivered before the trigger). A sender re-sends an event's payload as it
// is (Standard Webhooks 1.0.0, "Webhook metadata": only the timestamp and
// signature change), so the body tells an event's attempts apart even when
// the id, which WS-01 judges, does not.
func attemptsOf(es []faults.Entry, seen map[string]bool) []attempt {
	if evs := eventsOf(es, seen); len(evs) > 0 {
		return evs[0]
	}
	return nil
}

// eventsOf groups the deliveries in es whose body is not in seen by body,
// each event's attempts in the order received, the events in the order
// of their first attempts.
func eventsOf(es []faults.Entry, seen map[string]bool) [][]attempt {
	es = slices.Clone(es)
	slices.SortStableFunc(es, func(a, b faults.Entry) int { return a.Received.Compare(b.Received) })
	index := map[string]int{}
	var out [][]attempt
	for _, e := range es {
		if e.BodySHA256 == "" || seen[e.BodySHA256] {
			continue
		}
		i, ok := index[e.BodySHA256]
		if !ok {
			i = len(out)
			index[e.BodySHA256] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], attempt{at: e.Received, id: e.Header(webhooks.HeaderID), ts: e.Header(webhooks.HeaderTimestamp),
			sig: e.Header(webhooks.HeaderSignature), digest: e.BodySHA256, status: e.Status, entry: e})
	}
	return out
}

// verified says why a's signature does not verify with key over body, or
// "" when one of its space-separated signatures does (Standard Webhooks
// 1.0.0, "Verifying webhook authenticity"). The timestamp's age is not
// judged: the attempt was received now.
func verified(a attempt, key, body []byte) string {
	switch {
	case a.sig == "":
		return "no webhook-signature"
	case a.ts == "":
		return "no webhook-timestamp"
	}
	sec, err := strconv.ParseInt(a.ts, 10, 64)
	if err != nil {
		return "webhook-timestamp " + strconv.Quote(a.ts) + " is not Unix seconds"
	}
	want := webhooks.Sign(key, a.id, time.Unix(sec, 0), body)
	for _, s := range strings.Fields(a.sig) {
		if hmac.Equal([]byte(s), []byte(want)) {
			return ""
		}
	}
	return "webhook-signature " + strconv.Quote(a.sig) + " does not verify over id, timestamp and body"
}

// gaps are the waits between consecutive attempts: gaps[i] before attempt
// i+2.
func gaps(as []attempt) []time.Duration {
	var out []time.Duration
	for i := 1; i < len(as); i++ {
		out = append(out, as[i].at.Sub(as[i-1].at))
	}
	return out
}

// evidence is the journal entries of as.
func evidence(as []attempt) []faults.Entry {
	out := make([]faults.Entry, len(as))
	for i, a := range as {
		out[i] = a.entry
	}
	return out
}
