package main

import (
	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/check/builtin"
	"github.com/resilcheck/resilcheck/clients"
	"github.com/resilcheck/resilcheck/compose"
	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/reference/target"
	"github.com/resilcheck/resilcheck/targets"
)

// kinds is every kind of target this build of resilcheck brings up. It is
// written out here, the one package that links them all, rather than each
// kind registering itself from init: specs are read and targets launched by
// this table alone, and certify stays free of the reference stack's store
// drivers (certify's TestDependencies).
func kinds() launch.Kinds {
	return launch.Kinds{
		targets.KindRunning:   launch.RunningKind(),
		targets.KindProcess:   launch.ProcessKind(),
		targets.KindReference: target.Kind(),
		targets.KindCompose:   compose.Kind(),
		targets.KindClient:    clients.Kind(),
	}
}

// specOptions are what every command reads a target spec with, so that
// `target validate` judges a spec as `certify` does: every kind of kinds,
// and a waiver may name any check of the suites.
func specOptions() []targets.Option {
	return []targets.Option{targets.WithKinds(kinds().Specs()), targets.WithChecks(checkIDs())}
}

// checkIDs lists the ID of every check a waiver may name.
func checkIDs() []string {
	var ids []string
	for _, e := range check.Catalogue(builtin.Catalogued()) {
		ids = append(ids, e.ID)
	}
	return ids
}
