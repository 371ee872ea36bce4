package targets

import (
	"fmt"
	"strings"
)

// MaxConcurrency bounds the copies of a target: each is a stack of
// processes and proxies, and checks mostly wait, so a few fill the time.
// The reference's twelve leave room for a spec asking for more, up to
// three properties exploring at once on five copies each.
const MaxConcurrency = 16

// CopyProblem says why n copies of t cannot run side by side, each behind
// proxies of its own, or "" when they can (0 and 1 are one copy). Copies
// must share nothing a check could see: resilcheck must start each (kinds
// process and reference), on a port of its own, with a store of its own,
// and place each one's proxies.
func (t *Target) CopyProblem(n int) string {
	if ps := t.copyProblems(t.Kind, n); len(ps) > 0 {
		return ps[0].Path + ": " + ps[0].Msg
	}
	return ""
}

// copyProblems are CopyProblem's reasons, for a target of kind.
func (t *Target) copyProblems(kind Kind, n int) []Problem {
	switch {
	case n < 0:
		return []Problem{{Path: "concurrency", Msg: fmt.Sprintf("must be 0 or more, got %d", n)}}
	case n > MaxConcurrency:
		return []Problem{{Path: "concurrency", Msg: fmt.Sprintf("at most %d copies, got %d", MaxConcurrency, n)}}
	case n <= 1:
		return nil
	}
	var out []Problem
	switch kind {
	case KindProcess:
		// The default URL takes {{.Port}}; a fixed one would be bound by the
		// first copy, and the others' health checks would reach it.
		if u := t.Service.URL; u != "" && !strings.Contains(u, ".Port") {
			out = append(out, Problem{Path: "service.url", Msg: fmt.Sprintf("a fixed address cannot serve %d copies (concurrency %d): use {{.Port}} or {{.Ports.NAME}}", n, n)})
		}
	case KindReference:
		if s := t.Reference.Store; s != "" && s != "sqlite" {
			out = append(out, Problem{Path: "reference.store", Msg: fmt.Sprintf("%d copies would share the store %s (concurrency %d): leave it to the default, a temporary SQLite per copy", n, s, n)})
		}
	default:
		return []Problem{{Path: "concurrency", Msg: fmt.Sprintf("kind %s is one copy of the service: only kinds process and reference can be started %d times", kind, n)}}
	}
	for i, d := range t.Dependencies {
		if d.Listen != "" && !strings.HasSuffix(d.Listen, ":0") {
			out = append(out, Problem{Path: fmt.Sprintf("dependencies[%d].listen", i), Msg: fmt.Sprintf("a fixed address cannot take %d copies' proxies (concurrency %d): use port 0", n, n)})
		}
	}
	for i, tr := range t.Tiers {
		if tr.Listen != "" && !strings.HasSuffix(tr.Listen, ":0") {
			out = append(out, Problem{Path: fmt.Sprintf("tiers[%d].listen", i), Msg: fmt.Sprintf("a fixed address cannot take %d copies' hop proxies (concurrency %d): use port 0", n, n)})
		}
		if kind == KindProcess && tr.URL != "" && !strings.Contains(tr.URL, ".Ports.") {
			out = append(out, Problem{Path: fmt.Sprintf("tiers[%d].url", i), Msg: fmt.Sprintf("a fixed address would make %d copies share the tier %s (concurrency %d): use {{.Ports.NAME}}", n, tr.Name, n)})
		}
	}
	return out
}
