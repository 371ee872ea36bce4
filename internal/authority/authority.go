package authority

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"strings"
	"time"
)

// Authority is a certificate authority that lives as long as one run. Its
// methods are safe for concurrent use.
type Authority struct {
	cert  *x509.Certificate
	key   *ecdsa.PrivateKey
	pem   []byte
	hosts []string
	now   func() time.Time
	life  time.Duration
}

// Option configures New.
type Option func(*Authority)

// WithHosts adds DNS names or IP addresses to every leaf, beyond the
// loopback names 127.0.0.1, ::1 and localhost that every leaf carries.
func WithHosts(hosts ...string) Option {
	return func(a *Authority) { a.hosts = append(a.hosts, hosts...) }
}

// WithLifetime sets how long the CA and its leaves are valid from now
// (default 24 h: longer than any run, short enough to be useless after).
func WithLifetime(d time.Duration) Option { return func(a *Authority) { a.life = d } }

// New makes a fresh CA: a new P-256 key and a self-signed certificate
// that may sign server leaves only (path length 0).
func New(opts ...Option) (*Authority, error) {
	a := &Authority{hosts: []string{"127.0.0.1", "::1", "localhost"}, now: time.Now, life: 24 * time.Hour}
	for _, o := range opts {
		o(a)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("authority: key: %w", err)
	}
	tmpl, err := a.template()
	if err != nil {
		return nil, err
	}
	tmpl.Subject = pkix.Name{Organization: []string{"resilcheck"}, CommonName: "resilcheck run CA " + tmpl.SerialNumber.Text(16)[:8]}
	tmpl.IsCA, tmpl.BasicConstraintsValid, tmpl.MaxPathLenZero = true, true, true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("authority: CA certificate: %w", err)
	}
	a.cert, err = x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("authority: CA certificate: %w", err)
	}
	a.key = key
	a.pem = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return a, nil
}

// template is a certificate valid from a minute ago (clock skew between
// processes on one host is nil, but a leaf must not be "not yet valid")
// for the authority's lifetime, with a random serial.
func (a *Authority) template() (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("authority: serial: %w", err)
	}
	now := a.now()
	return &x509.Certificate{SerialNumber: serial, NotBefore: now.Add(-time.Minute), NotAfter: now.Add(a.life)}, nil
}

// Leaf issues a server certificate for the loopback names and the
// authority's hosts, with its chain (leaf, then CA) and a fresh key.
func (a *Authority) Leaf() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("authority: leaf key: %w", err)
	}
	tmpl, err := a.template()
	if err != nil {
		return tls.Certificate{}, err
	}
	// A leaf must not outlive its issuer: strict verifiers (and RFC 5280's
	// path validation read literally) refuse a chain whose CA expires first.
	tmpl.NotAfter = minTime(tmpl.NotAfter, a.cert.NotAfter)
	tmpl.Subject = pkix.Name{Organization: []string{"resilcheck"}, CommonName: a.hosts[0]}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	for _, h := range a.hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.cert, &key.PublicKey, a.key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("authority: leaf certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("authority: leaf certificate: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der, a.cert.Raw}, PrivateKey: key, Leaf: leaf}, nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// CertPEM returns the CA certificate, PEM-encoded: what a client must
// trust. It holds no key.
func (a *Authority) CertPEM() []byte { return append([]byte(nil), a.pem...) }

// Pool returns a pool holding the CA certificate alone.
func (a *Authority) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(a.cert)
	return p
}

// Fingerprint is the SHA-256 of the CA certificate's DER, as colon-separated
// upper-case hex (the form openssl x509 -fingerprint -sha256 prints).
func (a *Authority) Fingerprint() string { return Fingerprint(a.cert.Raw) }

// Fingerprint is the SHA-256 of der in colon-separated upper-case hex.
func Fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	h := strings.ToUpper(hex.EncodeToString(sum[:]))
	var b strings.Builder
	for i := 0; i < len(h); i += 2 {
		if i > 0 {
			b.WriteByte(':')
		}
		b.WriteString(h[i : i+2])
	}
	return b.String()
}
