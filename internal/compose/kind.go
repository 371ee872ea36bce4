package compose

import (
	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/targets"
)

// Kind is kind compose, for the table of kinds a program brings up: the
// spec's defaults, and the launcher that drives the helper.
func Kind() launch.Kind {
	return launch.Kind{Spec: targets.KindSpec{Defaults: Defaults}, Launcher: newLauncher}
}
