package cli

import (
	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/check/builtin"
)

// app is one build of resilcheck: the built-in suites and the suites its
// main package adds. The zero app is the stock resilcheck.
type app struct {
	custom []check.Suite
}

// Option configures a build of resilcheck.
type Option func(*app)

// WithSuites adds suites of your own checks. They run after the built-in
// suites and are selected (--suite, --check), gated, waived, replayed and
// reported as the built-in checks are; `resilcheck checks` lists them.
func WithSuites(suites ...check.Suite) Option {
	return func(a *app) { a.custom = append(a.custom, suites...) }
}

// suites are the service suites this build runs.
func (a *app) suites() []check.Suite { return append(builtin.Suites(), a.custom...) }

// catalogued are the suites `resilcheck checks` lists: the service suites,
// then the client suite, then this build's own.
func (a *app) catalogued() []check.Suite { return append(builtin.Catalogued(), a.custom...) }
