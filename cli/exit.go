package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"syscall"

	"github.com/resilcheck/resilcheck/certify"
	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/internal/reference/defect"
	"github.com/resilcheck/resilcheck/internal/reference/gateway"
	"github.com/resilcheck/resilcheck/internal/reference/store"
	"github.com/resilcheck/resilcheck/load"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// Exit codes are the contract with CI; README documents them and exitCode
// is the only place an error becomes a code.
const (
	exitPass         = 0 // every check passed
	exitFail         = 1 // at least one check failed (the verdict), or a load threshold missed
	exitUsage        = 2 // bad flag, invalid target spec or rules file, a target command that cannot start
	exitInconclusive = 3 // target unhealthy or unreachable, a dependency's upstream unreachable, load rate not reached
	exitInterrupted  = 4 // stopped by a signal; a partial report says so
	exitInternal     = 5 // a bug in resilcheck, including a recovered panic
)

// usageError marks an error the command line itself caused (exit 2), where
// the package called has no typed error to say so.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usage error (exit 2) formatted like fmt.Errorf.
func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// panicError is a panic recovered from a command (exit 5).
type panicError struct{ value any }

func (e panicError) Error() string { return fmt.Sprintf("internal error: %v", e.value) }

// exitCodes maps the typed and sentinel errors of the packages the commands
// call to exit codes; the first match wins, and an error matching none is
// an internal error.
var exitCodes = []struct {
	code  int
	match func(error) bool
}{
	{exitInternal, as[panicError]},
	{exitUsage, as[usageError]},
	{exitUsage, as[*targets.SpecError]},
	{exitUsage, as[*defect.UnknownError]},
	{exitUsage, is(certify.ErrConfig, load.ErrSpec, load.ErrUnknownFormat, reports.ErrSchema,
		reports.ErrUnknownFormat, store.ErrBadURL, gateway.ErrInvalidOption)},
	{exitUsage, notStarted},
	{exitFail, is(certify.ErrFailed, errCallFailed, errMatrixDisagrees)},
	{exitFail, as[*load.ThresholdError]},
	{exitInconclusive, is(certify.ErrUnhealthy, launch.ErrUnhealthy, certify.ErrInconclusive, errMatrixUncertified)},
	{exitInconclusive, as[*load.ShortfallError]},
	{exitInterrupted, is(certify.ErrInterrupted, context.Canceled)},
}

// notStarted matches a target process that could not be started at all:
// its command does not exist or cannot be executed. That is the spec's
// mistake (exit 2), not a target that failed its health check (exit 3).
func notStarted(err error) bool {
	var exited *launch.ExitedError
	if !errors.As(err, &exited) {
		return false
	}
	return errors.Is(exited.Err, exec.ErrNotFound) || errors.Is(exited.Err, exec.ErrDot) ||
		errors.Is(exited.Err, fs.ErrNotExist) || errors.Is(exited.Err, fs.ErrPermission) ||
		errors.Is(exited.Err, syscall.ENOEXEC)
}

// exitCode maps an error returned by a command to the process exit code.
func exitCode(err error) int {
	if err == nil {
		return exitPass
	}
	for _, c := range exitCodes {
		if c.match(err) {
			return c.code
		}
	}
	return exitInternal
}

func as[T error](err error) bool {
	var target T
	return errors.As(err, &target)
}

func is(sentinels ...error) func(error) bool {
	return func(err error) bool {
		for _, s := range sentinels {
			if errors.Is(err, s) {
				return true
			}
		}
		return false
	}
}
