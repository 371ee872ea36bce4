package faults

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors callers may branch on with errors.Is.
var (
	// ErrUnknownFault: a rule names a fault type nobody registered.
	ErrUnknownFault = errors.New("faults: unknown fault type")
	// ErrDuplicateRule: a rule with that name already exists.
	ErrDuplicateRule = errors.New("faults: duplicate rule name")
	// ErrInvalidRule: a rule or its fault failed validation.
	ErrInvalidRule = errors.New("faults: invalid rule")
	// ErrClosed: the proxy was closed.
	ErrClosed = errors.New("faults: proxy closed")
)

// AttrError reports an attribute that could not be decoded. Path names the
// attribute from the rule down, e.g. ["fault", "stauts"].
type AttrError struct {
	Path []string
	Err  error
}

func (e *AttrError) Error() string {
	return fmt.Sprintf("faults: %s: %v", strings.Join(e.Path, "."), e.Err)
}

func (e *AttrError) Unwrap() error { return e.Err }

// within prefixes the path of an *AttrError in err with elem; other errors
// become an *AttrError at elem.
func within(elem string, err error) error {
	if err == nil {
		return nil
	}
	var ae *AttrError
	if errors.As(err, &ae) {
		ae.Path = append([]string{elem}, ae.Path...)
		return ae
	}
	return &AttrError{Path: []string{elem}, Err: err}
}

// RulesFileError reports a problem in a rules file at a line (1-based; 0 if
// unknown). Tools print it as "file:line: message".
type RulesFileError struct {
	File string
	Line int
	Err  error
}

func (e *RulesFileError) Error() string {
	msg := strings.TrimPrefix(e.Err.Error(), "faults: ")
	switch {
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, msg)
	default:
		return fmt.Sprintf("%s: %s", e.File, msg)
	}
}

func (e *RulesFileError) Unwrap() error { return e.Err }
