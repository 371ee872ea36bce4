// Command resilcheck certifies HTTP services for resilience: no duplicate side
// effects under retries, bounded retry amplification, truthful Retry-After,
// deadlines kept and propagated, honest rate-limit headers.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	// Kind reference: the built-in reference stack as a target.
	_ "github.com/resilcheck/resilcheck/reference/target"
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		// The first signal stops the run gracefully so the partial report is
		// written; a second means the user will not wait for that.
		<-sig
		fmt.Fprintln(os.Stderr, "resilcheck: stopping; writing a partial report (Ctrl-C again to exit at once)")
		cancel()
		<-sig
		os.Exit(exitInterrupted)
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	cancel()
	os.Exit(code)
}
