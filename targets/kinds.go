package targets

import "slices"

// KindSpec is what a kind of target defined outside this package (the
// reference stack, a compose project, a client) adds to reading its specs:
// it knows its service, so it completes the spec and checks its own section.
type KindSpec struct {
	// Defaults fills what the kind knows about its service into t's zero
	// fields, before the documented defaults apply. It must be idempotent and
	// assign fields rather than modify slices or maps t holds. nil = nothing.
	Defaults func(t *Target)
	// Validate returns the problems of what the kind reads from the spec as
	// written (its own section), each naming its Path; positions are added
	// here. nil = nothing to check.
	Validate func(t *Target) []Problem
}

// kind returns what k adds to its specs, and whether k is known: given
// with WithKinds, or running or process, whose sections this package reads.
func (o *options) kind(k Kind) (KindSpec, bool) {
	if s, ok := o.kinds[k]; ok {
		return s, true
	}
	return KindSpec{}, k == KindRunning || k == KindProcess
}

// kindNames lists the known kinds, sorted.
func (o *options) kindNames() []string {
	names := []string{string(KindRunning), string(KindProcess)}
	for k := range o.kinds {
		if k != KindRunning && k != KindProcess {
			names = append(names, string(k))
		}
	}
	slices.Sort(names)
	return names
}
