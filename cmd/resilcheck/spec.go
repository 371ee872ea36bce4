package main

import (
	"github.com/resilcheck/resilcheck/suites"
	"github.com/resilcheck/resilcheck/targets"
)

// specOptions are what every command reads a target spec with, so that
// `target validate` judges a spec as `certify` does: a waiver may name any
// check of the suites.
func specOptions() []targets.Option {
	return []targets.Option{targets.WithChecks(checkIDs())}
}

// checkIDs lists the ID of every check a waiver may name.
func checkIDs() []string {
	var ids []string
	for _, e := range suites.Catalogue() {
		ids = append(ids, e.ID)
	}
	return ids
}
