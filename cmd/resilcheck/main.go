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
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 3)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	notice := stopNotice(os.Args[1:])
	go func() {
		// The first signal stops the run gracefully (certify then writes its
		// partial report); a second means stop now: whatever report the run has is
		// still written whole, but nothing else is waited for long; a third
		// exits at once.
		<-sig
		fmt.Fprintln(os.Stderr, freshLine(os.Stderr)+notice)
		cancel()
		<-sig
		fmt.Fprintln(os.Stderr, freshLine(os.Stderr)+"resilcheck: stopping now")
		stopNow(done, sig)
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	close(done)
	cancel()
	os.Exit(code)
}
