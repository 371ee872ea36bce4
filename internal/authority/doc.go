// Package authority is a throwaway certificate authority for one run: a CA
// certificate and ECDSA P-256 leaves for the loopback names, so the
// harness's proxies can terminate TLS that the target's clients verify.
// Keys live in memory only; the CA certificate (public) is all that is
// written, beside the report and in the trust bundle handed to the target.
//
//	a, err := authority.New(authority.WithHosts("host.docker.internal"))
//	leaf, err := a.Leaf()            // for 127.0.0.1, ::1, localhost and the hosts
//	err = a.WriteBundle(path, authority.SystemRoots())
//
// It is written by hand on crypto/x509, not taken from a library: the
// standard library does it in about sixty lines, and a dependency would
// bring more than it saves.
package authority
