// Command resilcheck-custom is resilcheck with one check of its own added:
// CX-01 (package replayheader). Its whole main is the line below; every
// command, flag and report of resilcheck works as in the stock build.
package main

import (
	"os"

	"github.com/resilcheck/resilcheck/cli"
	"github.com/resilcheck/resilcheck/examples/customcheck/replayheader"
)

func main() { os.Exit(cli.Main(os.Args[1:], cli.WithSuites(replayheader.Suite()))) }
