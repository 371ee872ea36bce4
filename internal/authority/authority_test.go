package authority

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAuthority_Leaf(t *testing.T) {
	a, err := New(WithHosts("host.docker.internal"))
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := a.Leaf()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"127.0.0.1", "::1", "localhost", "host.docker.internal"} {
		_, err := leaf.Leaf.Verify(x509.VerifyOptions{DNSName: name, Roots: a.Pool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
		if err != nil {
			t.Errorf("Leaf().Verify(%s): %v", name, err)
		}
	}
	if _, err := leaf.Leaf.Verify(x509.VerifyOptions{DNSName: "example.com", Roots: a.Pool()}); err == nil {
		t.Error("Leaf().Verify(example.com) passed; want a name mismatch")
	}
	other, err := New()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := leaf.Leaf.Verify(x509.VerifyOptions{DNSName: "localhost", Roots: other.Pool()}); err == nil {
		t.Error("a leaf verified under another run's CA")
	}
	if leaf.Leaf.NotAfter.Sub(time.Now()) > 25*time.Hour {
		t.Errorf("leaf valid until %v, want about 24 h", leaf.Leaf.NotAfter)
	}
}

func TestAuthority_CertPEM(t *testing.T) {
	a, err := New()
	if err != nil {
		t.Fatal(err)
	}
	b, rest := pem.Decode(a.CertPEM())
	if b == nil || b.Type != "CERTIFICATE" || len(bytes.TrimSpace(rest)) != 0 {
		t.Fatalf("CertPEM() = %q, want one CERTIFICATE block", a.CertPEM())
	}
	if bytes.Contains(a.CertPEM(), []byte("PRIVATE")) {
		t.Error("CertPEM() holds a key")
	}
	if got := Fingerprint(b.Bytes); got != a.Fingerprint() || len(got) != 95 {
		t.Errorf("Fingerprint() = %q, want 32 colon-separated bytes of the DER's SHA-256", a.Fingerprint())
	}
}

func TestAuthority_Bundle(t *testing.T) {
	a, err := New()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	roots := filepath.Join(dir, "roots.pem")
	other, _ := New()
	if err := os.WriteFile(roots, other.CertPEM(), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, roots string
		want        int // certificates in the bundle
	}{
		{"with roots", roots, 2},
		{"roots missing", filepath.Join(dir, "none.pem"), 1},
		{"no roots", "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name+".pem")
			if err := a.WriteBundle(path, tt.roots); err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(path)
			if !bytes.HasPrefix(data, a.CertPEM()) {
				t.Error("the bundle does not start with the run's CA")
			}
			if n := strings.Count(string(data), "BEGIN CERTIFICATE"); n != tt.want {
				t.Errorf("WriteBundle(%q): %d certificates, want %d", tt.roots, n, tt.want)
			}
		})
	}
}

func TestReadPool(t *testing.T) {
	dir := t.TempDir()
	a, _ := New()
	good, bad := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "bad.pem")
	_ = os.WriteFile(good, a.CertPEM(), 0o644)
	_ = os.WriteFile(bad, []byte("-----BEGIN CERTIFICATE-----\nnot base64\n"), 0o644)
	tests := []struct {
		path string
		want error
	}{
		{good, nil},
		{bad, ErrNoCertificate},
		{filepath.Join(dir, "missing.pem"), fs.ErrNotExist},
	}
	for _, tt := range tests {
		_, err := ReadPool(tt.path)
		if (tt.want == nil) != (err == nil) || (tt.want != nil && !errors.Is(err, tt.want)) {
			t.Errorf("ReadPool(%s) = %v, want %v", filepath.Base(tt.path), err, tt.want)
		}
	}
}

// TestAuthority_LeafWithinCA: a leaf issued late in the run expires with
// its CA, not after it.
func TestAuthority_LeafWithinCA(t *testing.T) {
	a, err := New(WithLifetime(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(30 * time.Minute)
	a.now = func() time.Time { return later }
	leaf, err := a.Leaf()
	if err != nil {
		t.Fatal(err)
	}
	if leaf.Leaf.NotAfter.After(a.cert.NotAfter) {
		t.Errorf("leaf valid until %v, after its CA's %v", leaf.Leaf.NotAfter, a.cert.NotAfter)
	}
	if !leaf.Leaf.NotBefore.Before(later) {
		t.Errorf("leaf valid from %v, want before its issue at %v", leaf.Leaf.NotBefore, later)
	}
}

// TestFirstFile: the first path naming a regular file wins; none, "".
func TestFirstFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "roots.pem")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := firstFile([]string{filepath.Join(dir, "none.pem"), dir, file}); got != file {
		t.Errorf("firstFile = %q, want %q: a missing path and a directory skipped", got, file)
	}
	if got := firstFile([]string{filepath.Join(dir, "none.pem")}); got != "" {
		t.Errorf("firstFile of missing paths = %q, want empty", got)
	}
}
