package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// Main runs resilcheck with args (the command line without the program's
// name) and returns the exit code for os.Exit: the first SIGINT or SIGTERM
// stops a run gracefully, a second stops it now, a third exits at once.
func Main(args []string, opts ...Option) int {
	a := &app{}
	for _, o := range opts {
		o(a)
	}
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 3)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	notice := stopNotice(args)
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
	code := a.run(ctx, args, os.Stdout, os.Stderr)
	close(done)
	cancel()
	return code
}
