package targets

import (
	"fmt"
	"net/http"
	"strings"
)

// Request is an operation rendered for one set of RequestValues. It carries
// neither the idempotency key nor the tenant header: the harness sets those,
// since some checks send them malformed or not at all.
type Request struct {
	Method string
	Path   string // under service.url
	Body   []byte
	Header http.Header // Content-Type and the operation's headers
}

// Render expands the operation's templates with v. With alt, the body is the
// different payload used by mismatch checks: AltBody, or else Body rendered
// with .Amount+1. Defaults must have been applied (Parse and Load do).
func (o Operation) Render(v RequestValues, alt bool) (Request, error) {
	path, err := render(o.Path, v)
	if err != nil {
		return Request{}, fmt.Errorf("targets: operation %s: path: %w", o.Name, err)
	}
	bodyText := o.Body
	if alt {
		if o.AltBody != "" {
			bodyText = o.AltBody
		} else {
			v.Amount++
		}
	}
	body, err := render(bodyText, v)
	if err != nil {
		return Request{}, fmt.Errorf("targets: operation %s: body: %w", o.Name, err)
	}
	h, err := renderHeaders(o.Headers, v)
	if err != nil {
		return Request{}, fmt.Errorf("targets: operation %s: %w", o.Name, err)
	}
	if o.ContentType != "" && body != "" {
		h.Set("Content-Type", o.ContentType)
	}
	return Request{Method: o.Method, Path: path, Body: []byte(body), Header: h}, nil
}

// Succeeded reports whether status means the operation took effect: one of
// Success, or any 2xx when Success is empty.
func (o Operation) Succeeded(status int) bool {
	if len(o.Success) == 0 {
		return status >= 200 && status < 300
	}
	for _, s := range o.Success {
		if s == status {
			return true
		}
	}
	return false
}

// RenderURL expands the probe's URL and headers with v; a URL that is a path
// is joined to base (the service's base URL).
func (p Probe) RenderURL(base string, v RequestValues) (string, http.Header, error) {
	u, err := render(p.URL, v)
	if err != nil {
		return "", nil, fmt.Errorf("targets: probe url: %w", err)
	}
	if strings.HasPrefix(u, "/") {
		u = strings.TrimSuffix(base, "/") + u
	}
	h, err := renderHeaders(p.Headers, v)
	if err != nil {
		return "", nil, fmt.Errorf("targets: probe: %w", err)
	}
	return u, h, nil
}

// Render expands the command and environment templates with v.
func (p Process) Render(v ProcessValues) (argv []string, env map[string]string, err error) {
	for i, a := range p.Command {
		s, err := render(a, v)
		if err != nil {
			return nil, nil, fmt.Errorf("targets: process.command[%d]: %w", i, err)
		}
		argv = append(argv, s)
	}
	env = make(map[string]string, len(p.Env))
	for k, val := range p.Env {
		s, err := render(val, v)
		if err != nil {
			return nil, nil, fmt.Errorf("targets: process.env.%s: %w", k, err)
		}
		env[k] = s
	}
	return argv, env, nil
}

// RenderUpstream expands a kind-process dependency's upstream with v (its
// {{.Ports.NAME}}); an upstream without a template is returned as written.
func (d Dependency) RenderUpstream(v UpstreamValues) (string, error) {
	return renderAddress(d.Upstream, v, "dependency "+d.Name+": upstream")
}

// renderAddress expands an address that may name free ports with v; one
// without a template is returned as written. what names the field in errors.
func renderAddress(text string, v UpstreamValues, what string) (string, error) {
	if !strings.Contains(text, "{{") {
		return text, nil
	}
	s, err := render(text, v)
	if err != nil {
		return "", fmt.Errorf("targets: %s: %w", what, err)
	}
	return s, nil
}

// TenantHeaders renders tenancy.headers for tenant.
func (t Tenancy) TenantHeaders(tenant string) (http.Header, error) {
	return renderHeaders(t.Headers, RequestValues{Tenant: tenant})
}

func renderHeaders(in map[string]string, v RequestValues) (http.Header, error) {
	h := http.Header{}
	for k, val := range in {
		s, err := render(val, v)
		if err != nil {
			return nil, fmt.Errorf("header %s: %w", k, err)
		}
		h.Set(k, s)
	}
	return h, nil
}

// RenderURL expands a kind-process tier's URL with the named free ports;
// a URL without a template is returned as is.
func (tr Tier) RenderURL(v UpstreamValues) (string, error) {
	return renderAddress(tr.URL, v, "tier "+tr.Name+": url")
}
