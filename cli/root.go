package cli

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at link time:
// -ldflags "-X github.com/resilcheck/resilcheck/cli.version=v0.1.0".
var version = "dev"

// newRootCmd builds a fresh command tree; it holds no package-level state so
// tests can run the whole CLI in-process.
func newRootCmd() *cobra.Command {
	return (&app{}).newRootCmdTracking(new(bool))
}

// newRootCmdTracking is newRootCmd that sets *started once a command's own
// code runs, so errors cobra raises earlier (unknown command, bad arguments)
// can be told apart as usage errors.
func (a *app) newRootCmdTracking(started *bool) *cobra.Command {
	root := &cobra.Command{
		PersistentPreRun: func(*cobra.Command, []string) { *started = true },
		Use:              "resilcheck",
		Short:            "Certify HTTP services for resilience under injected faults and load",
		Long: `resilcheck stands on both sides of an HTTP service with a fault-injecting proxy,
drives it with requests, load and properties, and certifies five contracts:
no duplicate side effects under retries, bounded retry amplification, truthful
and respected Retry-After, deadlines kept and propagated, honest rate-limit headers.

Progress goes to stderr: a live line on a terminal, a line per check
otherwise; NO_COLOR turns colour off.

Exit codes: 0 pass, 1 a check failed (or a load threshold missed),
2 usage or configuration error, 3 inconclusive, 4 interrupted (partial
report written), 5 internal error.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildVersion(),
	}
	// -v is --verbose on every command, never --version (which cobra would
	// give -v to on the root alone).
	root.PersistentFlags().BoolP(verboseFlag, "v", false, "diagnostics on stderr: a target's output and the proxies' logs (certify), request logs (reference, proxy)")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usagef("%w\n\n%s", err, c.UsageString())
	})
	for _, newCmd := range commands {
		root.AddCommand(newCmd())
	}
	root.AddCommand(a.newCertifyCmd(), a.newChecksCmd(), a.newTargetCmd(), a.newMatrixCmd())
	return root
}

// commands lists the subcommand constructors, one per file.
var commands = []func() *cobra.Command{
	newVersionCmd,
	newProxyCmd,
	newReferenceCmd,
	newReportCmd,
	newLoadCmd,
	newManCmd,
}

// run executes the CLI with args and returns the exit code. A panic in a
// command is reported and mapped to exitInternal rather than crashing.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return (&app{}).run(ctx, args, stdout, stderr)
}

// run is the package-level run for a build with a's suites.
func (a *app) run(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "resilcheck: internal error: %v\n%s", r, debug.Stack())
			code = exitCode(panicError{r})
		}
	}()
	var started bool
	root := a.newRootCmdTracking(&started)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	flagNoticesTo(root, stderr)
	err := root.ExecuteContext(ctx)
	if err != nil && !started {
		err = usageError{err}
	}
	code = exitCode(err)
	if err != nil && code != exitFail {
		fmt.Fprintln(stderr, "resilcheck:", err)
	}
	return code
}

// flagNoticesTo sends pflag's notices (a deprecated flag was used) to w on
// every command: cobra would print them on the command's output, stdout,
// where they would corrupt a report rendered there.
func flagNoticesTo(c *cobra.Command, w io.Writer) {
	c.Flags().SetOutput(w)
	for _, sub := range c.Commands() {
		flagNoticesTo(sub, w)
	}
}

func buildVersion() string {
	if version != "dev" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return version
}
