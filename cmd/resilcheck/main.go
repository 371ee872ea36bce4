// Command resilcheck certifies HTTP services for resilience: no duplicate side
// effects under retries, bounded retry amplification, truthful Retry-After,
// deadlines kept and propagated, honest rate-limit headers.
package main

import (
	"os"

	"github.com/resilcheck/resilcheck/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
