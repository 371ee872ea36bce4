package authority

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// systemRootFiles are where Linux distributions keep the system's trusted
// CAs as one PEM file, in crypto/x509's order (root_linux.go): Debian,
// Ubuntu and Alpine's ca-certificates first, then Fedora/RHEL, openSUSE,
// OpenELEC, CentOS/RHEL 7, and /etc/ssl/cert.pem (Alpine, macOS).
var systemRootFiles = []string{
	"/etc/ssl/certs/ca-certificates.crt",
	"/etc/pki/tls/certs/ca-bundle.crt",
	"/etc/ssl/ca-bundle.pem",
	"/etc/pki/tls/cacert.pem",
	"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
	"/etc/ssl/cert.pem",
}

// SystemRoots returns the first of the system's CA bundle files that
// exists, or "" when there is none. A bundle written without them would
// leave a target told to trust it (SSL_CERT_FILE replaces the system
// roots) unable to reach any real https service, so every distribution's
// path is tried, not Debian's alone.
func SystemRoots() string { return firstFile(systemRootFiles) }

func firstFile(paths []string) string {
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	return ""
}

// Bundle is the run's CA followed by the PEM file at roots, when it exists.
// Clients told to trust a file through SSL_CERT_FILE (Go, OpenSSL),
// REQUESTS_CA_BUNDLE or CURL_CA_BUNDLE trust it instead of the system
// roots, so the bundle keeps those: the target can still reach real
// https services. A missing roots file gives the CA alone.
func (a *Authority) Bundle(roots string) ([]byte, error) {
	var b bytes.Buffer
	b.Write(a.pem)
	if roots == "" {
		return b.Bytes(), nil
	}
	sys, err := os.ReadFile(roots)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return b.Bytes(), nil
	case err != nil:
		return nil, fmt.Errorf("authority: system roots: %w", err)
	}
	if !bytes.HasSuffix(b.Bytes(), []byte("\n")) {
		b.WriteByte('\n')
	}
	b.Write(sys)
	return b.Bytes(), nil
}

// WriteBundle writes Bundle(roots) to path, readable by the target's user.
func (a *Authority) WriteBundle(path, roots string) error {
	data, err := a.Bundle(roots)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("authority: bundle: %w", err)
	}
	return nil
}
