package main

import (
	"errors"
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

// checkKey accepts a token key: 1 to 255 visible ASCII characters.
func checkKey(key string) error {
	if len(key) == 0 || len(key) > 255 {
		return errors.New("Idempotency-Key must be 1 to 255 characters")
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; c <= 0x20 || c > 0x7e {
			return errors.New("Idempotency-Key must be visible ASCII, no spaces")
		}
	}
	return nil
}
