package headers

import (
	"errors"
	"fmt"
)

// FieldError is a rate-limit field value that breaks one rule. Rule is the
// ID of the check it breaks ("RL-01", "RL-02", "RL-03", "RL-04", "RL-07",
// "RL-22"). It wraps ErrSyntax and, when the value was not even a
// Structured Field, the parser's error.
type FieldError struct {
	Field string // e.g. "RateLimit-Policy"
	Value string
	Rule  string
	Msg   string
	Err   error // underlying structured-field error; may be nil
}

// Error names the field, its value, the rule and what is wrong.
func (e *FieldError) Error() string {
	return fmt.Sprintf("headers: %s %q: %s: %s", e.Field, excerpt(e.Value), e.Rule, e.Msg)
}

// Unwrap returns ErrSyntax and the underlying error, if any.
func (e *FieldError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrSyntax, e.Err}
	}
	return []error{ErrSyntax}
}

// Violations returns every FieldError in err's tree, in order; nil when err
// holds none. Parsers here join all the violations of one value.
func Violations(err error) []*FieldError {
	var out []*FieldError
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		if fe, ok := e.(*FieldError); ok {
			out = append(out, fe)
			return
		}
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		}
	}
	walk(err)
	return out
}

// violations collects the FieldErrors of one field value.
type violations struct {
	field, value string
	errs         []error
}

func (v *violations) add(rule, format string, a ...any) {
	v.errs = append(v.errs, &FieldError{Field: v.field, Value: v.value, Rule: rule, Msg: fmt.Sprintf(format, a...)})
}

func (v *violations) wrap(rule string, err error, msg string) {
	v.errs = append(v.errs, &FieldError{Field: v.field, Value: v.value, Rule: rule, Msg: msg, Err: err})
}

func (v *violations) err() error { return errors.Join(v.errs...) }
