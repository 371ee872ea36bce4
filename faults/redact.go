package faults

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// credentialFields are never journaled in the clear: the journal and the
// evidence in reports become CI artifacts that many people can read, and
// targets that bind tenants to credentials send real tokens.
var credentialFields = []string{"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"}

// redactCredentials replaces, in place, the value of every credential field
// in m by its scheme (when it has one) and a short SHA-256 fingerprint, so
// two exchanges with the same credential still compare equal.
func redactCredentials(m map[string]string) map[string]string {
	for _, k := range credentialFields {
		v, ok := m[k]
		if !ok {
			continue
		}
		sum := sha256.Sum256([]byte(v))
		fp := "redacted:" + hex.EncodeToString(sum[:4])
		if scheme, _, found := strings.Cut(v, " "); found && k != "Cookie" && k != "Set-Cookie" {
			fp = scheme + " " + fp
		}
		m[k] = fp
	}
	return m
}
