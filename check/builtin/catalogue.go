package builtin

import (
	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/clients"
)

// Catalogued returns every suite the catalogue lists: the built-in suites,
// then the client suite, whose checks judge a client calling the harness
// rather than a service behind it (certify runs them through clients.Run
// for a target of kind client).
func Catalogued() []check.Suite { return append(Suites(), clients.Suite(clients.Config{})) }
