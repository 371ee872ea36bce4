// Command resilcheck-compose is the helper resilcheck starts for targets of
// kind compose: it brings a docker-compose project up and down and reads its
// containers' logs, speaking the line protocol of package compose on stdin
// and stdout. It is not meant to be run by hand, but can be:
//
//	resilcheck-compose serve --project demo --service api --file compose.yaml
//
// prints {"event":"up",...}; typing {"op":"logs"} prints the logs, and
// Ctrl-D tears the project down.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/resilcheck/resilcheck/compose/engine"
)

type files []string

func (f *files) String() string     { return fmt.Sprint(*f) }
func (f *files) Set(s string) error { *f = append(*f, s); return nil }

func main() {
	if len(os.Args) < 2 || os.Args[1] != "serve" {
		fmt.Fprintln(os.Stderr, "usage: resilcheck-compose serve --project NAME --service NAME --file FILE...")
		os.Exit(2)
	}
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	project := fs.String("project", "", "compose project name (required)")
	service := fs.String("service", "", "the compose service resilcheck certifies (required)")
	var fl files
	fs.Var(&fl, "file", "compose file (repeatable, required)")
	_ = fs.Parse(os.Args[2:])
	if *project == "" || *service == "" || len(fl) == 0 {
		fs.Usage()
		os.Exit(2)
	}
	if err := engine.Serve(*project, *service, fl, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "resilcheck-compose:", err)
		os.Exit(1)
	}
}
