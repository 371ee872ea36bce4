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
	files  bool              // check that the files a process spec runs exist
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

// WithFileChecks makes Validate look for the files a kind-process spec
// runs, as the launcher would: process.command's program (on PATH when it
// has no slash, else relative to process.dir) and, when that program is an
// interpreter such as sh, bash, python3 or node, the script it is given (an
// argument that names a file: with a slash or a script's extension). One
// that does not exist, is a directory or, for a program, is not executable
// is a problem at its line, not a target that fails to start. So is a CA
// file (service.ca, dependencies' upstream_ca) that is missing or holds no
// PEM certificate. Arguments with templates are not looked for. Without
// the option a spec is judged without the file system.
func WithFileChecks() Option {
	return func(o *options) { o.files = true }
}
