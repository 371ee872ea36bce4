package targets

import (
	"maps"
	"slices"
	"strings"
)

// An Option gives Load, Parse, Validate and Defaults what judging a spec
// takes from outside this package. Without options a spec is judged on its
// own: only kinds running and process are known, and a gate waiver's check
// is only checked for its shape.
type Option func(*options)

// options are what the Options given to one call amount to.
type options struct {
	kinds  map[Kind]KindSpec // the kinds given besides running and process
	checks []string          // the check IDs a waiver may name; empty = any well-formed ID
}

func newOptions(opts []Option) *options {
	o := &options{}
	for _, opt := range opts {
		opt(o)
	}
	return o
}

// WithKinds makes each kind of kinds known, with what it adds to its specs.
// Running and process are known without it; a spec of any other kind not
// given is a problem. Several WithKinds add up, a later one's entry for a
// kind replacing an earlier one's.
func WithKinds(kinds map[Kind]KindSpec) Option {
	return func(o *options) {
		if o.kinds == nil {
			o.kinds = map[Kind]KindSpec{}
		}
		maps.Copy(o.kinds, kinds)
	}
}

// WithChecks names the checks a gate waiver may waive, such as the IDs
// `resilcheck checks` lists: a waiver naming another check is a problem.
// Matching ignores case, and several WithChecks add up. With no IDs, as
// without the option, a waiver's check need only look like one (RL-07).
func WithChecks(ids []string) Option {
	return func(o *options) { o.checks = append(o.checks, ids...) }
}

// knownCheck reports whether id is one of the checks given (ignoring case),
// and whether any was given at all.
func (o *options) knownCheck(id string) (known, listed bool) {
	return slices.ContainsFunc(o.checks, func(c string) bool { return strings.EqualFold(c, id) }), len(o.checks) > 0
}
