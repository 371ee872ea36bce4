package builtin

import (
	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/clients"
)

// clientSuite is the client suite as the catalogue lists it. Its checks
// judge a client calling the harness, not a service behind it, so they run
// through clients.Run (certify runs them for a target of kind client) and
// have no Run here.
func clientSuite() check.Suite {
	s := check.Suite{Name: clients.SuiteName}
	for _, c := range clients.Checks() {
		k := check.Check{ID: c.ID, Suite: clients.SuiteName, Level: c.Level, Title: c.Title, Source: c.Source}
		for _, n := range c.Needs {
			k.Needs = append(k.Needs, check.Need{Name: n.Name, Doc: n.Doc})
		}
		s.Checks = append(s.Checks, k)
	}
	return s
}

// Catalogued returns every suite the catalogue lists: the built-in suites,
// then the client suite.
func Catalogued() []check.Suite { return append(Suites(), clientSuite()) }
