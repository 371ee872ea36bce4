package main

import (
	"errors"
	"strings"
	"sync"
)

// answer is a stored response, replayed for a retried key.
type answer struct {
	status int
	body   []byte
}

type keyState int

const (
	keyNew keyState = iota
	keyBusy
	keyDone
	keyMismatch
)

type entry struct {
	fp   [32]byte
	done bool
	a    answer
}

// keyStore remembers keys for the life of the process.
type keyStore struct {
	mu sync.Mutex
	m  map[string]*entry
}

func newKeyStore() *keyStore { return &keyStore{m: map[string]*entry{}} }

// begin claims scope for a request with fingerprint fp, or says why not.
func (s *keyStore) begin(scope string, fp [32]byte) (answer, keyState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.m[scope]
	switch {
	case !ok:
		s.m[scope] = &entry{fp: fp}
		return answer{}, keyNew
	case e.fp != fp:
		return answer{}, keyMismatch
	case !e.done:
		return answer{}, keyBusy
	}
	return e.a, keyDone
}

func (s *keyStore) finish(scope string, a answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[scope].done, s.m[scope].a = true, a
}

func (s *keyStore) forget(scope string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, scope)
}

// parseKey reads an Idempotency-Key as draft-ietf-httpapi-idempotency-key-header
// defines it: an RFC 9651 sf-string of printable ASCII, at most 255 characters.
func parseKey(raw string) (string, error) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", errors.New(`Idempotency-Key must be a quoted string, e.g. "8e03978e"`)
	}
	var b strings.Builder
	for i := 1; i < len(raw)-1; i++ {
		c := raw[i]
		switch {
		case c == '\\':
			i++
			if i == len(raw)-1 || (raw[i] != '"' && raw[i] != '\\') {
				return "", errors.New("Idempotency-Key has a bad escape")
			}
			b.WriteByte(raw[i])
		case c == '"':
			return "", errors.New("Idempotency-Key has an unescaped quote")
		case c < 0x20 || c > 0x7e:
			return "", errors.New("Idempotency-Key must be printable ASCII")
		default:
			b.WriteByte(c)
		}
	}
	if b.Len() == 0 || b.Len() > 255 {
		return "", errors.New("Idempotency-Key must be 1 to 255 characters")
	}
	return b.String(), nil
}
