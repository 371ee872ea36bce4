package faults

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"time"
)

// Respond answers the request itself without forwarding: the stand-in's
// scripted response. Body is a text/template when it contains "{{", with
// .Method, .Path, .Query, .Body, .N (the request's ordinal for the rule)
// and .Header "Name" available.
type Respond struct {
	// Status defaults to 200.
	Status int `attr:"status"`
	// Headers are set on the response.
	Headers map[string]string `attr:"headers"`
	// Body is sent as is, or rendered when it contains "{{".
	Body string `attr:"body"`
	// Delay waits before answering.
	Delay time.Duration `attr:"delay"`
}

var _ Fault = Respond{}
var _ Validator = Respond{}

func init() { Register("respond", func() Fault { return new(Respond) }) }

// Validate checks the status and parses the body template.
func (f Respond) Validate() error {
	if f.Status != 0 && (f.Status < 200 || f.Status > 599) {
		return fmt.Errorf("status %d not in [200, 599]", f.Status)
	}
	if f.Delay < 0 {
		return errors.New("delay must not be negative")
	}
	_, err := bodyTemplate(f.Body)
	return err
}

// Inject waits Delay, then answers.
func (f Respond) Inject(ex *Exchange) error {
	if err := ex.Sleep(f.Delay); err != nil {
		return err
	}
	body, err := f.render(ex)
	if err != nil {
		return err
	}
	return ex.Respond(f.status(), f.Headers, body)
}

func (f Respond) status() int {
	if f.Status == 0 {
		return http.StatusOK
	}
	return f.Status
}

func (f Respond) render(ex *Exchange) ([]byte, error) {
	t, err := bodyTemplate(f.Body)
	if err != nil || t == nil {
		return []byte(f.Body), err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, templateData{ex}); err != nil {
		return nil, fmt.Errorf("faults: respond body template: %w", err)
	}
	return b.Bytes(), nil
}

// response builds the stand-in's answer as if it came from an upstream.
func (f Respond) response(ex *Exchange) (*http.Response, error) {
	if err := ex.Sleep(f.Delay); err != nil {
		return nil, err
	}
	body, err := f.render(ex)
	if err != nil {
		return nil, err
	}
	h := make(http.Header, len(f.Headers)+1)
	for k, v := range f.Headers {
		h.Set(k, v)
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	return &http.Response{
		StatusCode: f.status(), Header: h, ContentLength: int64(len(body)),
		Body: io.NopCloser(bytes.NewReader(body)), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
	}, nil
}

// templateData is what a body template sees.
type templateData struct{ ex *Exchange }

func (d templateData) Method() string { return d.ex.r.Method }
func (d templateData) Path() string   { return d.ex.r.URL.Path }
func (d templateData) Query() string  { return d.ex.r.URL.RawQuery }
func (d templateData) Body() string   { return string(d.ex.body) }
func (d templateData) N() uint64      { return d.ex.n }

// Header returns the request header name.
func (d templateData) Header(name string) string { return d.ex.r.Header.Get(name) }

// templates caches parsed bodies; it is capped so a client feeding the
// admin API endless distinct bodies cannot grow it without bound.
var templates = struct {
	sync.Mutex
	m map[string]*template.Template
}{m: map[string]*template.Template{}}

func bodyTemplate(body string) (*template.Template, error) {
	if !strings.Contains(body, "{{") {
		return nil, nil
	}
	templates.Lock()
	defer templates.Unlock()
	if t, ok := templates.m[body]; ok {
		return t, nil
	}
	t, err := template.New("body").Option("missingkey=error").Parse(body)
	if err != nil {
		return nil, fmt.Errorf("body template: %w", err)
	}
	if len(templates.m) < 1024 {
		templates.m[body] = t
	}
	return t, nil
}
