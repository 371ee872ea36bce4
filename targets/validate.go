package targets

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Validate checks t and returns a *SpecError listing every problem, or nil.
// It accepts both raw specs (zero values meaning defaults) and defaulted ones;
// problems carry line and column when t came from Parse or Load.
func (t *Target) Validate(opts ...Option) error {
	v := &validator{t: t, opts: newOptions(opts)}
	v.kind = v.checkKind()
	kind, known := v.opts.kind(v.kind)
	if known && kind.Defaults != nil {
		// What the kind knows about its service counts as written: the
		// reference's operations are checked like a user's.
		c := *t
		kind.Defaults(&c)
		v.t = &c
	}
	if v.kind == KindClient {
		// resilcheck is the client's server: there is no service to reach.
		v.checkClient()
	} else {
		v.deps = v.checkDependencies()
		v.checkService()
		v.checkTLS()
		v.checkProtocols()
		v.checkProcess()
		v.checkCompose()
	}
	v.checkTiers()
	if known && kind.Validate != nil {
		for _, p := range kind.Validate(t) {
			v.errf(p.Path, "%s", p.Msg)
		}
	}
	if v.kind != KindClient {
		v.checkOperations()
		v.checkEffects()
		v.checkTenancy()
		v.checkConventions()
		v.checkPolicy()
		v.checkWebhooks()
		v.checkWebhookSender()
		v.checkQueueConsumer()
		v.checkOutbox()
		v.checkBrokerUses()
	}
	v.checkGate()
	v.checkConcurrency()
	if len(v.probs) == 0 {
		return nil
	}
	slices.SortStableFunc(v.probs, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	return &SpecError{Problems: capProblems(v.probs)}
}

type validator struct {
	t     *Target
	opts  *options
	kind  Kind
	deps  []string // declared dependency names
	probs []Problem
}

// errf reports a problem at the value of path.
func (v *validator) errf(path, format string, a ...any) { v.add(path, false, format, a...) }

// keyErrf reports a problem at the key of path (for "this section must not be here").
func (v *validator) keyErrf(path, format string, a ...any) { v.add(path, true, format, a...) }

func (v *validator) add(path string, key bool, format string, a ...any) {
	line, col := v.at(path, key)
	v.probs = append(v.probs, Problem{Line: line, Column: col, Path: path, Msg: fmt.Sprintf(format, a...)})
}

// at finds where path was written; a field left out is reported at its
// nearest written parent's key.
func (v *validator) at(path string, key bool) (line, col int) {
	if v.t.src == nil {
		return 0, 0
	}
	if p, ok := v.t.src.at[path]; ok {
		if key {
			return p.keyLine, p.keyCol
		}
		return p.line, p.col
	}
	for path != "" {
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
		if p, ok := v.t.src.at[path]; ok {
			return p.keyLine, p.keyCol
		}
	}
	return 1, 1
}

func (v *validator) checkKind() Kind {
	t := v.t
	if t.Version != 0 && t.Version != Version {
		v.errf("version", "unsupported version %d; this resilcheck reads version %d", t.Version, Version)
	}
	hasProc, hasRef, hasCompose, hasClient := !isZero(t.Process), !isZero(t.Reference), !isZero(t.Compose), !isZero(t.Client)
	kind := t.Kind
	if kind == "" {
		switch {
		case hasProc && hasRef:
			v.keyErrf("reference", "both process and reference sections are set; set kind to the one you mean")
			return ""
		case hasCompose && (hasProc || hasRef):
			v.keyErrf("compose", "the compose section is set with a process or reference section; set kind to the one you mean")
			return ""
		case hasClient && (hasProc || hasRef || hasCompose):
			v.keyErrf("client", "the client section is set with a process, reference or compose section; set kind to the one you mean")
			return ""
		case hasClient:
			kind = KindClient
		case hasProc:
			kind = KindProcess
		case hasRef:
			kind = KindReference
		case hasCompose:
			kind = KindCompose
		default:
			kind = KindRunning
		}
	}
	switch _, known := v.opts.kind(kind); {
	case known:
	case kind == KindReference:
		v.errf("kind", "kind reference needs the built-in reference stack, which this build of resilcheck leaves out")
		return ""
	case kind == KindCompose:
		v.errf("kind", "kind compose needs the compose launcher (package compose), which this build of resilcheck leaves out")
		return ""
	case kind == KindClient:
		v.errf("kind", "kind client needs the client suite (package clients), which this build of resilcheck leaves out")
		return ""
	default:
		v.errf("kind", "unknown kind %q; expected %s", t.Kind, strings.Join(v.opts.kindNames(), ", "))
		return ""
	}
	if hasProc && kind != KindProcess {
		v.keyErrf("process", "the process section is only for kind process (kind is %s)", kind)
	}
	if hasRef && kind != KindReference {
		v.keyErrf("reference", "the reference section is only for kind reference (kind is %s)", kind)
	}
	if hasCompose && kind != KindCompose {
		v.keyErrf("compose", "the compose section is only for kind compose (kind is %s)", kind)
	}
	if hasClient && kind != KindClient {
		v.keyErrf("client", "the client section is only for kind client (kind is %s)", kind)
	}
	return kind
}

func isZero(x any) bool { return reflect.ValueOf(x).IsZero() }

// sample values used to try templates at validation time.
var sampleRequest = RequestValues{Key: "k-0001", Amount: 100, Tenant: "tenant-a", Seq: 1}

func (v *validator) sampleProcess() ProcessValues {
	deps := map[string]string{}
	for i, d := range v.deps {
		deps[d] = fmt.Sprintf("http://127.0.0.1:%d", 9091+i)
	}
	return ProcessValues{Port: 8080, TempDir: "/tmp/resilcheck-target", Dependencies: deps, Tiers: v.sampleTiers("127.0.0.1"), Ports: v.samplePorts()}
}

// samplePorts gives every port name the spec uses a sample port.
func (v *validator) samplePorts() map[string]int {
	ports := map[string]int{}
	for i, name := range v.t.PortNames() {
		ports[name] = 20001 + i
	}
	return ports
}

// template checks a template field and reports its problem, returning whether it is usable.
func (v *validator) template(path, text string, sample any) bool {
	if msg := checkTemplate(text, sample, v.t.templateNames()); msg != "" {
		v.errf(path, "%s", msg)
		return false
	}
	return true
}

// plain rejects template actions in a field that is not expanded.
func (v *validator) plain(path, s, why string) bool {
	if strings.Contains(s, "{{") {
		v.errf(path, "templates are not expanded here (%s)", why)
		return false
	}
	return true
}

func (v *validator) positive(path string, d interface{ String() string }, neg bool) {
	if neg {
		v.errf(path, "must be positive, got %s", d)
	}
}

// checkConcurrency refuses a concurrency the target cannot take.
func (v *validator) checkConcurrency() {
	for _, p := range v.t.copyProblems(v.kind, v.t.Concurrency) {
		v.errf(p.Path, "%s", p.Msg)
	}
}
