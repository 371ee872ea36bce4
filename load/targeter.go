package load

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"text/template"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// BodyData is what a body template sees for one request.
type BodyData struct {
	Seq    int    // the request's number in the attack, from 0
	Key    string // its idempotency key, "" when the Spec has no KeyHeader
	Tenant string // its tenant, "" when the Spec has no Tenants
}

// targeter builds each request of an attack. vegeta calls it from many
// workers at once, so its state is behind a mutex, and every Target gets a
// header map of its own.
type targeter struct {
	spec Spec
	body *template.Template // nil: spec.Body verbatim

	mu  sync.Mutex
	rng *rand.Rand
	seq int
}

func newTargeter(s Spec) (*targeter, error) {
	t := &targeter{spec: s, rng: rand.New(rand.NewPCG(s.Seed, s.Seed^0x9e3779b97f4a7c15))}
	if bytes.Contains(s.Body, []byte("{{")) {
		tmpl, err := template.New("body").Option("missingkey=error").Parse(string(s.Body))
		if err != nil {
			return nil, fmt.Errorf("%w: body template: %w", ErrSpec, err)
		}
		// A field BodyData lacks fails every request: say so before the
		// attack, in the template's terms rather than Go's.
		if err := tmpl.Execute(io.Discard, BodyData{}); err != nil {
			return nil, fmt.Errorf("%w: body template: %s", ErrSpec, templateProblem(err))
		}
		t.body = tmpl
	}
	return t, nil
}

// unknownField matches text/template's message for a field BodyData lacks.
var unknownField = regexp.MustCompile(`at <([^>]*)>: can't evaluate field (\w+) in type \S+`)

// templateProblem rewrites a template execution error without the Go type
// it names.
func templateProblem(err error) string {
	if m := unknownField.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Sprintf("%s: no field %s (a body template has .Seq, .Key and .Tenant)", m[1], m[2])
	}
	return err.Error()
}

// next reserves the next request's number and key.
func (t *targeter) next() (seq int, key string, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.spec.MaxRequests > 0 && t.seq >= t.spec.MaxRequests {
		return 0, "", false
	}
	seq = t.seq
	t.seq++
	if t.spec.KeyHeader != "" {
		key = uuid4(t.rng)
	}
	return seq, key, true
}

// target fills tgt; it is a vegeta.Targeter.
func (t *targeter) target(tgt *vegeta.Target) error {
	if tgt == nil {
		return vegeta.ErrNilTarget
	}
	seq, key, ok := t.next()
	if !ok {
		return vegeta.ErrNoTargets
	}
	d := BodyData{Seq: seq, Key: key}
	if n := len(t.spec.Tenants); n > 0 {
		d.Tenant = t.spec.Tenants[seq%n]
	}
	h := make(http.Header, len(t.spec.Header)+2)
	for k, vs := range t.spec.Header {
		h[k] = append([]string(nil), vs...)
	}
	if key != "" {
		h.Set(t.spec.KeyHeader, key)
	}
	if d.Tenant != "" {
		h.Set(t.spec.tenantHeader(), d.Tenant)
	}
	body := t.spec.Body
	if t.body != nil {
		var b strings.Builder
		if err := t.body.Execute(&b, d); err != nil {
			return fmt.Errorf("load: body template for request %d: %w", seq, err)
		}
		body = []byte(b.String())
	}
	if t.spec.Build != nil {
		b, err := t.spec.Build(d, h)
		if err != nil {
			return fmt.Errorf("load: building request %d: %w", seq, err)
		}
		body = b
	}
	*tgt = vegeta.Target{Method: t.spec.method(), URL: t.spec.URL, Body: body, Header: h}
	return nil
}

// uuid4 draws a random (version 4) UUID from r.
func uuid4(r *rand.Rand) string {
	var b [16]byte
	for i := 0; i < 16; i += 8 {
		v := r.Uint64()
		for j := range 8 {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
