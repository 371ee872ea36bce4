package faults

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Match selects the requests a rule applies to. Every set criterion must
// hold; the zero Match matches every request. The counters behind First,
// Every and After count the requests that passed Method, Path, Headers and
// Missing since the rule was added, starting at 1.
type Match struct {
	// Method matches the request method case-insensitively; empty matches any.
	Method string `attr:"method"`
	// Path is a glob over the URL path (no query): * matches any run of
	// characters including '/', ? matches one character. Empty matches any.
	Path string `attr:"path"`
	// Headers maps header names to value globs; each header must be present
	// with a value the glob matches. "*" only requires presence.
	Headers map[string]string `attr:"headers"`
	// Missing lists headers that must be absent.
	Missing []string `attr:"missing"`
	// First, when > 0, matches only the first First counted requests.
	First int `attr:"first"`
	// Every, when > 0, matches only every Every-th counted request.
	Every int `attr:"every"`
	// After, when > 0, matches only counted requests after the first After.
	After int `attr:"after"`
	// Probability in (0, 1] is the chance that a request passing the other
	// criteria is faulted, drawn from the proxy's seeded generator; 0 means 1.
	Probability float64 `attr:"probability"`
	// Limit, when > 0, caps how many requests the rule faults in total.
	Limit int `attr:"limit"`
}

// Validate reports the first inconsistent criterion.
func (m Match) Validate() error {
	switch {
	case m.Probability < 0 || m.Probability > 1:
		return fmt.Errorf("probability %v not in (0, 1]", m.Probability)
	case m.First < 0 || m.Every < 0 || m.After < 0 || m.Limit < 0:
		return errors.New("first, every, after and limit must not be negative")
	case strings.ContainsAny(m.Method, " \t/"):
		return fmt.Errorf("method %q is not a token", m.Method)
	case m.Path != "" && !strings.HasPrefix(m.Path, "/") && !strings.HasPrefix(m.Path, "*"):
		return fmt.Errorf("path %q must start with / or *", m.Path)
	}
	return nil
}

// static reports whether r passes the criteria that need no counter.
func (m *Match) static(r *http.Request) bool {
	if m.Method != "" && !strings.EqualFold(m.Method, r.Method) {
		return false
	}
	if m.Path != "" && !glob(m.Path, r.URL.Path) {
		return false
	}
	for name, pattern := range m.Headers {
		if !headerMatches(r.Header.Values(name), pattern) {
			return false
		}
	}
	for _, name := range m.Missing {
		if _, ok := r.Header[http.CanonicalHeaderKey(name)]; ok {
			return false
		}
	}
	return true
}

// counted reports whether the n-th counted request passes First/Every/After.
func (m *Match) counted(n uint64) bool {
	return (m.First == 0 || n <= uint64(m.First)) &&
		(m.Every == 0 || n%uint64(m.Every) == 0) &&
		(m.After == 0 || n > uint64(m.After))
}

func headerMatches(values []string, pattern string) bool {
	for _, v := range values {
		if glob(pattern, v) {
			return true
		}
	}
	return false
}

// glob matches s against pattern, where * matches any run of bytes and ?
// one byte. It backtracks only to the last star, so it runs in O(len²) worst
// case and never recurses.
func glob(pattern, s string) bool {
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == s[i]):
			p++
			i++
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
