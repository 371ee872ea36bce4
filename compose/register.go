package compose

import "github.com/resilcheck/resilcheck/targets"

func init() {
	targets.RegisterKind(targets.KindCompose, targets.Plugin{Launcher: newLauncher, Defaults: Defaults})
}
