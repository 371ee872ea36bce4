package faults

import (
	"net/http"
	"time"
)

// Filter selects journal entries; it must not modify the entry.
type Filter func(e *Entry) bool

func all(filters []Filter, e *Entry) bool {
	for _, f := range filters {
		if !f(e) {
			return false
		}
	}
	return true
}

// BySide keeps entries recorded by the proxy on side.
func BySide(side string) Filter { return func(e *Entry) bool { return e.Side == side } }

// ByHeader keeps entries whose journaled request header name equals value.
func ByHeader(name, value string) Filter {
	name = http.CanonicalHeaderKey(name)
	return func(e *Entry) bool { v, ok := e.Headers[name]; return ok && v == value }
}

// ByRule keeps entries a rule named rule handled.
func ByRule(rule string) Filter { return func(e *Entry) bool { return e.Rule == rule } }

// ByPath keeps entries whose path matches glob (as in Match.Path).
func ByPath(pattern string) Filter { return func(e *Entry) bool { return glob(pattern, e.Path) } }

// ByMethod keeps entries with the given request method.
func ByMethod(method string) Filter { return func(e *Entry) bool { return e.Method == method } }

// Between keeps entries received in [from, to); a zero bound is open.
func Between(from, to time.Time) Filter {
	return func(e *Entry) bool {
		return (from.IsZero() || !e.Received.Before(from)) && (to.IsZero() || e.Received.Before(to))
	}
}
