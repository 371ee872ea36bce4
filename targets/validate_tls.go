package targets

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/resilcheck/resilcheck/internal/authority"
)

// checkTLS validates what the spec says about TLS: a CA file names a
// readable PEM certificate (when files are checked), and applies to an
// https URL; insecure and a CA file do not go together.
func (v *validator) checkTLS() {
	s := v.t.Service
	plain := v.plainService()
	if s.CA != "" {
		v.checkCAFile("service.ca", s.CA)
		if plain != "" {
			v.errf("service.ca", "a CA file verifies an https service; %s", plain)
		}
	}
	if s.Insecure && s.CA != "" {
		v.errf("service.insecure", "insecure skips the verification service.ca is for; keep one of them")
	}
	if s.Insecure && plain != "" {
		v.errf("service.insecure", "insecure applies to an https service; %s", plain)
	}
	for i, d := range v.t.Dependencies {
		if d.UpstreamCA == "" {
			continue
		}
		p := fmt.Sprintf("dependencies[%d].upstream_ca", i)
		v.checkCAFile(p, d.UpstreamCA)
		if !strings.HasPrefix(d.Upstream, "https://") {
			v.errf(p, "a CA file verifies an https upstream; upstream is %q", d.Upstream)
		}
	}
}

// plainService says why the service is not reached over https, or "" when
// it is or its URL is still unknown. An omitted url is plain too: kind
// process defaults to DefaultProcessURL and the reference serves http, so
// a CA file or insecure there would be silently ignored; kinds that require
// a url report its absence themselves.
func (v *validator) plainService() string {
	u := v.t.Service.URL
	switch {
	case strings.HasPrefix(u, "https://"):
		return ""
	case u != "":
		return "service.url is " + u
	case v.kind == KindProcess:
		return "service.url is the default, " + DefaultProcessURL
	case v.kind == KindReference:
		return "the reference serves plain http"
	}
	return ""
}

// checkCAFile reports a CA file that is missing or holds no certificate.
func (v *validator) checkCAFile(path, file string) {
	if !v.opts.files {
		return
	}
	if _, err := authority.ReadPool(v.t.SpecPath(file)); err != nil {
		v.errf(path, "%v", err)
	}
}

// SpecPath resolves a path the spec writes relative to its own file.
func (t *Target) SpecPath(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(t.Dir, p)
}

// AnyTLSDependency reports whether a dependency is declared tls: the run
// then needs its own certificate authority.
func (t *Target) AnyTLSDependency() bool {
	for _, d := range t.Dependencies {
		if d.TLS {
			return true
		}
	}
	return false
}
