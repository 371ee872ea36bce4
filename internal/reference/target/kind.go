package target

import (
	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/targets"
)

// Kind is kind reference, for the table of kinds a program brings up: the
// stack's own spec, its checks of the reference section, and its launcher.
// Only a program that puts it in its table links the stack's store drivers.
func Kind() launch.Kind {
	return launch.Kind{
		Spec:     targets.KindSpec{Defaults: Defaults, Validate: validate},
		Launcher: newLauncher,
	}
}
