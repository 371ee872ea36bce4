package authority

import (
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// ErrNoCertificate is wrapped by ReadPool for a file that holds no PEM
// certificate (a key, a DER file, a typo'd path's neighbour).
var ErrNoCertificate = errors.New("authority: no PEM certificate")

// ReadPool reads a PEM file of CA certificates, such as the one a spec
// names for an upstream's or a target's own CA. A missing file's error
// matches fs.ErrNotExist; a file without a certificate, ErrNoCertificate.
func ReadPool(path string) (*x509.CertPool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("authority: CA file: %w", err)
	}
	p := x509.NewCertPool()
	if !p.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("%w in %s", ErrNoCertificate, path)
	}
	return p, nil
}
