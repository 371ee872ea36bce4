package targets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resilcheck/resilcheck/internal/authority"
)

// TestTarget_Validate_tls: CA files must exist and hold a certificate, and
// apply to https URLs; insecure excludes a CA file.
func TestTarget_Validate_tls(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, err := authority.New()
	if err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(dir, "ca.pem"), a.CertPEM(), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "key.pem"), []byte("-----BEGIN PRIVATE KEY-----\nAA==\n-----END PRIVATE KEY-----\n"), 0o644)
	cases := []struct {
		name, service, dep string
		want               string // "" = valid; else part of the one problem
	}{
		{name: "plain"},
		{name: "tls dependency", dep: "tls: true"},
		{name: "https service with its CA", service: "url: https://127.0.0.1:9443, ca: ca.pem"},
		{name: "https service, insecure", service: "url: https://127.0.0.1:9443, insecure: true"},
		{name: "upstream CA", dep: "upstream: https://127.0.0.1:9444, upstream_ca: ca.pem"},
		{name: "missing CA file", service: "url: https://127.0.0.1:9443, ca: none.pem", want: "service.ca: authority: CA file: open"},
		{name: "a key, not a certificate", dep: "upstream: https://127.0.0.1:9444, upstream_ca: key.pem", want: "no PEM certificate"},
		{name: "CA for a plain service", service: "url: http://127.0.0.1:9443, ca: ca.pem", want: "verifies an https service"},
		{name: "CA and insecure", service: "url: https://127.0.0.1:9443, ca: ca.pem, insecure: true", want: "keep one of them"},
		{name: "upstream CA for plain upstream", dep: "upstream: http://127.0.0.1:9444, upstream_ca: ca.pem", want: "verifies an https upstream"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			service := "url: http://127.0.0.1:9443"
			if c.service != "" {
				service = c.service
			}
			dep := "name: pay"
			if c.dep != "" {
				dep += ", " + c.dep
			}
			spec := "kind: running\nservice: {" + service + "}\noperations: [{name: op, path: /x}]\n" +
				"dependencies: [{" + dep + ", listen: 127.0.0.1:9445}]\neffects: {ledger: {dependency: pay}}\n"
			_, err := Parse(filepath.Join(dir, "spec.yaml"), []byte(spec), WithFileChecks())
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("Parse: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("Parse: %v, want a problem with %q", err, c.want)
			}
		})
	}
}

// TestTarget_Validate_tlsDefaultURL: a process service without a url is
// served at the plain DefaultProcessURL, so a CA file or insecure for it is
// refused rather than silently ignored.
func TestTarget_Validate_tlsDefaultURL(t *testing.T) {
	t.Parallel()
	for _, service := range []string{"insecure: true", "ca: ca.pem"} {
		spec := "kind: process\nservice: {" + service + "}\nprocess: {command: [./svc]}\noperations: [{name: op, path: /x}]\n" +
			"dependencies: [{name: pay}]\neffects: {ledger: {dependency: pay}}\n"
		_, err := Parse("spec.yaml", []byte(spec))
		if err == nil || !strings.Contains(err.Error(), "service.url is the default") {
			t.Errorf("service {%s} without a url: %v, want a problem naming the plain default", service, err)
		}
	}
}
