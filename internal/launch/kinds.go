package launch

import (
	"fmt"

	"github.com/resilcheck/resilcheck/targets"
)

// Kind is one kind of target: what it adds to its specs and how it is
// brought up. The packages of the kinds defined elsewhere export theirs
// (compose.Kind, target.Kind, clients.Kind) for a program to put in its Kinds.
type Kind struct {
	Spec targets.KindSpec
	// Launcher makes the launcher for a validated, defaulted spec; required.
	Launcher func(t *targets.Target) (Launcher, error)
}

// Kinds is a table of the kinds a program brings up, by name. The program
// writes it out, so the kinds a spec may have are not whatever it links.
type Kinds map[targets.Kind]Kind

// RunningKind is kind running: a service already up.
func RunningKind() Kind {
	return Kind{Launcher: func(t *targets.Target) (Launcher, error) { return &RunningLauncher{Target: t}, nil }}
}

// ProcessKind is kind process: a command resilcheck starts and stops.
func ProcessKind() Kind {
	return Kind{Launcher: func(t *targets.Target) (Launcher, error) { return &ProcessLauncher{Target: t}, nil }}
}

// Specs returns what each kind adds to its specs, for targets.WithKinds.
func (ks Kinds) Specs() map[targets.Kind]targets.KindSpec {
	specs := make(map[targets.Kind]targets.KindSpec, len(ks))
	for k, kind := range ks {
		specs[k] = kind.Spec
	}
	return specs
}

// NewLauncher returns the launcher of t's kind. t must be validated and
// defaulted (targets.Parse and Load return it so).
func (ks Kinds) NewLauncher(t *targets.Target) (Launcher, error) {
	kind, ok := ks[t.Kind]
	if !ok || kind.Launcher == nil {
		return nil, fmt.Errorf("targets: no launcher registered for kind %q", t.Kind)
	}
	return kind.Launcher(t)
}
