package target

import "github.com/resilcheck/resilcheck/targets"

// The blank import of this package is how a build of resilcheck includes
// the reference stack; builds without it stay free of its store drivers.
func init() {
	targets.RegisterKind(targets.KindReference, targets.Plugin{
		Launcher: newLauncher,
		Defaults: Defaults,
		Validate: validate,
	})
}
