package cli

import (
	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/clients"
	"github.com/resilcheck/resilcheck/internal/compose"
	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/internal/reference/target"
	"github.com/resilcheck/resilcheck/targets"
)

// Kinds is every kind of target the resilcheck command brings up, for
// certify.Config.Kinds (certify alone launches running and process
// targets). It is written out here, the one package that links them all, rather than each
// kind registering itself from init: specs are read and targets launched by
// this table alone, and certify stays free of the reference stack's store
// drivers (certify's TestDependencies).
func Kinds() launch.Kinds {
	return launch.Kinds{
		targets.KindRunning:   launch.RunningKind(),
		targets.KindProcess:   launch.ProcessKind(),
		targets.KindReference: target.Kind(),
		targets.KindCompose:   compose.Kind(),
		targets.KindClient:    clients.Kind(),
	}
}

// SpecOptions are what the command reads a target spec with, so that
// `target validate` judges a spec as `certify` does: every kind of Kinds, a
// gate waiver may name any built-in check or a check of custom, and a
// process command's program and script must exist.
func SpecOptions(custom ...check.Suite) []targets.Option {
	a := &app{custom: custom}
	return []targets.Option{targets.WithKinds(Kinds().Specs()), targets.WithChecks(a.checkIDs()), targets.WithFileChecks()}
}

// specOptions are SpecOptions for a's suites.
func (a *app) specOptions() []targets.Option { return SpecOptions(a.custom...) }

// checkIDs lists the ID of every check a waiver may name.
func (a *app) checkIDs() []string {
	var ids []string
	for _, e := range check.Catalogue(a.catalogued()) {
		ids = append(ids, e.ID)
	}
	return ids
}
