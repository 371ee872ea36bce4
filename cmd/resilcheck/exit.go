package main

import (
	"context"
	"errors"
	"fmt"
)

// Exit codes are the contract with CI; DESIGN.md documents them and this file
// is the only place an error becomes a code.
const (
	exitPass         = 0 // every check passed
	exitFail         = 1 // at least one check failed: the verdict
	exitUsage        = 2 // bad flag, invalid target spec or rules file
	exitInconclusive = 3 // target unhealthy or unreachable, load rate not reached
	exitInterrupted  = 4 // stopped by a signal; a partial report says so
	exitInternal     = 5 // a bug in resilcheck, including a recovered panic
)

// usageError marks an error as the user's to fix (exit 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usage error (exit 2) formatted like fmt.Errorf.
func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// codedError carries an explicit exit code for outcomes that are not errors in
// the usual sense, such as a failing verdict.
type codedError struct {
	code int
	err  error
}

func (e codedError) Error() string { return e.err.Error() }
func (e codedError) Unwrap() error { return e.err }

// withCode attaches an exit code to err.
func withCode(code int, err error) error { return codedError{code: code, err: err} }

// exitCode maps an error returned by a command to the process exit code.
func exitCode(err error) int {
	var ce codedError
	var ue usageError
	switch {
	case err == nil:
		return exitPass
	case errors.As(err, &ce):
		return ce.code
	case errors.As(err, &ue):
		return exitUsage
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	}
	for _, c := range codeClassifiers {
		if code, ok := c(err); ok {
			return code
		}
	}
	return exitInternal
}

// codeClassifiers lets command files teach exitCode about the typed errors of
// the package they call, keeping the mapping table in this one file.
var codeClassifiers []func(error) (int, bool)
