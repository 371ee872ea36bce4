package certify

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/internal/authority"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// runTLS is what one run needs for TLS, shared by every copy of the
// target: the run's authority and the bundle handed to the target when a
// dependency is declared tls, and how the proxies verify the TLS they
// speak onward. The zero value (no TLS anywhere) is usable.
type runTLS struct {
	ca       *authority.Authority // nil: no dependency proxy serves TLS
	leaf     tls.Certificate
	dir      string // holds the bundle; removed by close
	bundle   string // the run's CA, then the system roots
	service  *tls.Config
	upstream map[string]*tls.Config // by dependency name, for those with upstream_ca
}

// newRunTLS makes the run's authority when a dependency is declared tls,
// writes its bundle (the run's CA, then the roots in resilcheck's own
// SSL_CERT_FILE or else the system's) to a fresh temporary directory, and
// reads the CA files the spec names. A CA file that cannot be read is a
// configuration error.
func newRunTLS(t *targets.Target) (*runTLS, error) {
	r := &runTLS{upstream: map[string]*tls.Config{}}
	var err error
	if r.service, err = serviceTLS(t); err != nil {
		return nil, err
	}
	for _, d := range t.Dependencies {
		if d.UpstreamCA == "" {
			continue
		}
		pool, err := authority.ReadPool(t.SpecPath(d.UpstreamCA))
		if err != nil {
			return nil, fmt.Errorf("%w: dependency %s: upstream_ca: %w", ErrConfig, d.Name, err)
		}
		r.upstream[d.Name] = &tls.Config{RootCAs: pool}
	}
	if !t.AnyTLSDependency() {
		return r, nil
	}
	var hosts []string
	if t.Kind == targets.KindCompose { // containers call the proxies by this name
		hosts = append(hosts, cmp.Or(t.Compose.DependencyHost, targets.DefaultDependencyHost))
	}
	if r.ca, err = authority.New(authority.WithHosts(hosts...)); err != nil {
		return nil, fmt.Errorf("certify: %w", err)
	}
	if r.leaf, err = r.ca.Leaf(); err != nil {
		return nil, fmt.Errorf("certify: %w", err)
	}
	if r.dir, err = os.MkdirTemp("", "resilcheck-tls-"); err != nil {
		return nil, fmt.Errorf("certify: %w", err)
	}
	r.bundle = filepath.Join(r.dir, "ca-bundle.pem")
	// The roots resilcheck itself was told to trust, else the system's:
	// the bundle replaces them for the target.
	if err := r.ca.WriteBundle(r.bundle, cmp.Or(os.Getenv("SSL_CERT_FILE"), authority.SystemRoots())); err != nil {
		r.close()
		return nil, fmt.Errorf("certify: %w", err)
	}
	return r, nil
}

// serviceTLS is how the front proxy, the health wait and the probe verify
// an https service: its spec's CA file, none (insecure), or nil for the
// system roots.
func serviceTLS(t *targets.Target) (*tls.Config, error) {
	s := t.Service
	switch {
	case s.Insecure:
		return &tls.Config{InsecureSkipVerify: true}, nil // the spec asked by name: service.insecure
	case s.CA != "":
		pool, err := authority.ReadPool(t.SpecPath(s.CA))
		if err != nil {
			return nil, fmt.Errorf("%w: service.ca: %w", ErrConfig, err)
		}
		return &tls.Config{RootCAs: pool}, nil
	}
	return nil, nil
}

// close removes the bundle; the keys go with the authority's memory.
func (r *runTLS) close() {
	if r.dir != "" {
		_ = os.RemoveAll(r.dir)
	}
}

// caFile is the bundle the target is handed, or "" when no proxy serves TLS.
func (r *runTLS) caFile() string { return r.bundle }

// dependencyOptions are the proxy options for d: a TLS front with the
// run's leaf when d is declared tls, and the upstream's CA when it names one.
func (r *runTLS) dependencyOptions(d targets.Dependency) []faults.Option {
	var opts []faults.Option
	if d.TLS {
		opts = append(opts, faults.WithTLS(r.leaf))
	}
	if cfg := r.upstream[d.Name]; cfg != nil {
		opts = append(opts, faults.WithUpstreamTLS(cfg))
	}
	return opts
}

// upstreamConfig is how dependency name's proxy verifies its https
// upstream: its upstream_ca, or nil for the system roots.
func (r *runTLS) upstreamConfig(name string) *tls.Config {
	if r == nil {
		return nil
	}
	return r.upstream[name]
}

// verifyUpstream completes a TLS handshake on c to host as a dependency
// proxy's transport would, then closes c. An upstream whose certificate
// the proxy will refuse is caught here, before the first check: otherwise
// every call the target makes would end in the proxy's 502, and the
// checks would judge the target against what looks like a dead dependency.
func verifyUpstream(ctx context.Context, c net.Conn, host string, cfg *tls.Config) error {
	cfg = cfg.Clone() // nil stays nil
	if cfg == nil {
		cfg = &tls.Config{}
	}
	if cfg.ServerName == "" {
		cfg.ServerName = host
	}
	tc := tls.Client(c, cfg)
	defer tc.Close()
	if err := tc.HandshakeContext(ctx); err != nil {
		return fmt.Errorf("TLS: %w", err)
	}
	return nil
}

// frontOptions are the front proxy's options: how it verifies an https
// service. It listens in plain HTTP: its only client is the harness.
func (r *runTLS) frontOptions() []faults.Option {
	if r.service == nil {
		return nil
	}
	return []faults.Option{faults.WithUpstreamTLS(r.service)}
}

// report says which hops of env spoke TLS, or nil when none did.
func (r *runTLS) report(env *environment) *reports.TLS {
	t := env.spec
	upstreams := map[string]string{} // the real ones, launched dependencies' too
	for _, u := range env.upstream {
		if !u.tier {
			upstreams[u.name] = u.url
		}
	}
	out := &reports.TLS{}
	if r.ca != nil {
		out.Authority = r.ca.Fingerprint()
	}
	if strings.HasPrefix(env.target.URLs["service"], "https://") {
		out.Hops = append(out.Hops, reports.TLSHop{Hop: "front", Upstream: verifiedBy(t.Service.Insecure, t.Service.CA)})
	}
	for _, d := range t.Dependencies {
		up, real := upstreams[d.Name]
		https := strings.HasPrefix(up, "https://")
		if !d.TLS && !https {
			continue
		}
		h := reports.TLSHop{Hop: "dependency:" + d.Name, Terminated: d.TLS, StandIn: !real}
		if https {
			h.Upstream = verifiedBy(false, d.UpstreamCA)
		}
		out.Hops = append(out.Hops, h)
	}
	if len(out.Hops) == 0 {
		return nil
	}
	return out
}

// verifiedBy names how TLS onward is verified, in the report's words.
func verifiedBy(insecure bool, caFile string) string {
	switch {
	case insecure:
		return reports.UpstreamInsecure
	case caFile != "":
		return "CA file " + caFile
	}
	return "system roots"
}

// writeCA saves the run's CA certificate beside the report, or removes
// the one an earlier run left there, which this report does not vouch for.
func (r *Result) writeCA(dir string) error {
	path := filepath.Join(dir, reports.CAFile)
	if len(r.CA) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("certify: %w", err)
		}
		return nil
	}
	return reports.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(r.CA)
		return err
	})
}
