// Package cli is the resilcheck command, as a package: Main runs it, and a
// team that adds checks of its own builds its resilcheck with a main of one
// line,
//
//	func main() { os.Exit(cli.Main(os.Args[1:], cli.WithSuites(mychecks.Suite()))) }
//
// Every command works as in the stock build, with those checks listed,
// selected, gated, waived, replayed and reported beside the built-in ones.
// SpecOptions and Kinds give a Go program what the command reads specs and
// starts targets with.
package cli
