// Command resilcheck certifies HTTP services for resilience: no duplicate side
// effects under retries, bounded retry amplification, truthful Retry-After,
// deadlines kept and propagated, honest rate-limit headers.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
