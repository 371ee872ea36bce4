package targets

import "strings"

// WebhookOrdering declares two events about one object, an earlier and a
// later, and how to read the object's state, so WH-09 can deliver them out
// of order and see whether the earlier one rolls the state back. The zero
// value declares none and WH-09 is not applicable.
type WebhookOrdering struct {
	// Earlier and Later are the two events' bodies, text/template over
	// RequestValues with .Key the object both are about; each is delivered
	// under a webhook-id of its own. Later must carry whatever the receiver
	// orders events by (a created timestamp, a version).
	Earlier string `yaml:"earlier"`
	Later   string `yaml:"later"`
	// State reads the object's state back from the service, .Key the
	// object.
	State StateProbe `yaml:"state"`
}

// Declared reports whether the spec declares the ordering events.
func (o WebhookOrdering) Declared() bool { return o.Earlier != "" || o.Later != "" }

// StateProbe reads one value of an object's state from the service. URL and
// Headers are templates over RequestValues.
type StateProbe struct {
	Method  string            `yaml:"method"`  // empty = GET
	URL     string            `yaml:"url"`     // absolute, or a path under service.url
	Headers map[string]string `yaml:"headers"` // extra request headers
	// Value locates the state in the JSON answer, as a count path does
	// (e.g. $.status); empty = the whole answer.
	Value string `yaml:"value"`
}

// Probe is s as a probe whose count path is its value path.
func (s StateProbe) Probe() Probe {
	return Probe{Method: s.Method, URL: s.URL, Headers: s.Headers, Count: s.Value}
}

// checkWebhookOrdering checks webhooks.ordering: both events and a state
// probe, or nothing.
func (v *validator) checkWebhookOrdering(o WebhookOrdering) {
	const at = "webhooks.ordering."
	if isZero(o) {
		return
	}
	for _, ev := range []struct{ name, body string }{{"earlier", o.Earlier}, {"later", o.Later}} {
		if ev.body == "" {
			v.keyErrf(at+ev.name, "required: the %s of two events about the object .Key, e.g. a JSON body with its created time", ev.name)
			continue
		}
		v.template(at+ev.name, ev.body, sampleRequest)
	}
	if o.State.URL == "" {
		v.keyErrf(at+"state.url", "required: where the object's state is read, e.g. /orders/{{.Key}}")
	}
	p := o.State.Probe()
	p.Count = ""
	v.checkProbe(at+"state", p)
	if _, err := ParseCountPath(o.State.Value); err != nil {
		v.errf(at+"state.value", "%s", strings.NewReplacer("count path", "value path", "$.count", "$.status").Replace(strings.TrimPrefix(err.Error(), "targets: ")))
	}
}
