package target

import (
	"errors"
	"fmt"
	"strings"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
	"github.com/resilcheck/resilcheck/targets"
)

// validate checks what kind reference reads from a spec as written: the
// reference section, and that the spec does not try to place what the stack
// places itself.
func validate(t *targets.Target) []targets.Problem {
	var probs []targets.Problem
	add := func(path, format string, a ...any) {
		probs = append(probs, targets.Problem{Path: path, Msg: fmt.Sprintf(format, a...)})
	}
	for i, name := range t.Reference.Defects {
		if _, err := defect.Parse(name); err != nil {
			msg := err.Error()
			if ue := (*defect.UnknownError)(nil); errors.As(err, &ue) {
				msg = strings.TrimPrefix(msg, "defect: ")
			}
			add(fmt.Sprintf("reference.defects[%d]", i), "%s", msg)
		}
	}
	switch st := t.Reference.Store; {
	case st == "", st == "sqlite", strings.HasPrefix(st, "sqlite:"),
		strings.HasPrefix(st, "postgres://"), strings.HasPrefix(st, "postgresql://"):
	default:
		add("reference.store", "expected sqlite, sqlite:PATH or a postgres:// URL, got %q", redactURL(st))
	}
	probs = append(probs, validateFace(t)...)
	if t.Service.URL != "" {
		add("service.url", "kind reference starts its own service; leave service.url out")
	}
	for i, d := range t.Dependencies {
		p := fmt.Sprintf("dependencies[%d]", i)
		switch {
		case d.Name != Processor:
			add(p+".name", "the reference stack calls one dependency, %s; got %q", Processor, d.Name)
		case d.Upstream != "" || d.Listen != "" || !isZero(d.StandIn):
			add(p, "the reference stack starts its own processor; leave listen, upstream and stand_in out")
		case d.TLS:
			// The stack is handed no CA bundle: its client would refuse the
			// proxy's certificate and every call would fail as an outage.
			add(p+".tls", "the reference stack calls its processor over plain http; leave tls out")
		}
	}
	if len(t.Tiers) > 0 {
		names := make([]string, len(t.Tiers))
		for i, tr := range t.Tiers {
			names[i] = tr.Name
			if tr.URL != "" || tr.Listen != "" {
				add(fmt.Sprintf("tiers[%d]", i), "the reference stack starts its own tiers; leave url and listen out")
			}
		}
		if strings.Join(names, ",") != GatewayTier+","+ServiceTier {
			add("tiers", "the reference stack's tiers are %s then %s; got %s", GatewayTier, ServiceTier, strings.Join(names, ", "))
		}
	}
	return probs
}

func isZero(s targets.StandIn) bool { return s.Status == 0 && s.Body == "" && len(s.Headers) == 0 }

// redactURL hides a password so a store URL can be echoed in errors.
func redactURL(s string) string {
	scheme := strings.Index(s, "://")
	at := strings.LastIndex(s, "@")
	if scheme < 0 || at < scheme {
		return s
	}
	if user, _, ok := strings.Cut(s[scheme+3:at], ":"); ok {
		return s[:scheme+3] + user + ":xxxxx" + s[at:]
	}
	return s
}
