package launch

import (
	"context"
	"crypto/tls"
	"io"
)

// Launcher brings a target up so the harness can certify it. Launch blocks
// until the service is healthy (its health URL answered 2xx) or returns an
// error; errors meaning "not healthy" match ErrUnhealthy.
type Launcher interface {
	Launch(ctx context.Context, env Env) (*Running, error)
}

// DependencyLauncher is a Launcher that starts some of its service's
// dependencies itself (the reference stack starts its processor; a compose
// file may start a database). The harness places no dependency proxy up
// front for the names Launched returns: Launch must call env.PlaceDependency
// for each once it knows where the dependency listens, and give the service
// the URL that returns instead. The harness fails the run if it does not.
type DependencyLauncher interface {
	Launcher
	Launched() []string
}

// TierLauncher is a Launcher that starts the tiers of a multi-tier target
// itself (the reference stack starts its gateway and service). The harness
// places no hop proxy up front for the tiers LaunchedTiers names: Launch
// must call env.PlaceTier for each once it knows where the tier listens,
// and point the tier above at the URL that returns instead.
type TierLauncher interface {
	Launcher
	LaunchedTiers() []string
}

// Env is what the harness provides a launcher.
type Env struct {
	// Dependencies maps each declared dependency the harness placed before
	// Launch (all but the launched ones) to its proxy's base URL.
	Dependencies map[string]string
	// PlaceDependency puts the harness's dependency proxy in front of the
	// dependency name, which the launcher started at upstream, and returns
	// the URL the service must call instead. Safe for concurrent use; nil
	// means no harness is listening (the service may call upstream directly).
	PlaceDependency func(ctx context.Context, name, upstream string) (string, error)
	// Tiers maps each tier after the first that the harness placed a hop
	// proxy before (all but the launched ones) to the proxy's base URL: the
	// address the tier above must call it at.
	Tiers map[string]string
	// PlaceTier puts the harness's hop proxy in front of the tier name,
	// which the launcher started at upstream, and returns the URL the tier
	// above must call instead. nil means no harness is listening.
	PlaceTier func(ctx context.Context, name, upstream string) (string, error)
	TempDir   string    // scratch space for the run; empty = the launcher makes and removes one
	Port      int       // the port the service should listen on; 0 = the launcher picks a free one
	Log       io.Writer // receives the service's output (bounded); nil = discarded
	Seed      uint64    // the run's seed, for targets that draw at random; 0 = the target's own choice
	// Ports are the named free ports ({{.Ports.NAME}}) the harness chose and
	// used already, e.g. in a dependency's upstream; distinct from one
	// another. A launcher picks the names its spec uses that are missing
	// here, and a Port distinct from them all.
	Ports map[string]int
	// CAFile is a PEM bundle, the run's CA followed by the system roots,
	// that the target must trust to reach its dependency proxies over TLS;
	// empty when none serves TLS. Kind process hands it to the command
	// (see CAVariables) and its templates as {{.CAFile}}.
	CAFile string
	// ServiceTLS verifies an https service while waiting for its health
	// (the CA its spec names, or no verification when it says insecure);
	// nil = the system roots.
	ServiceTLS *tls.Config
	// Broker is the URL of the broker the harness started for a queue
	// consumer (nats://127.0.0.1:PORT); empty = none. Kind process hands
	// it to its templates as {{.Broker}}.
	Broker string
}

// CAVariables are the environment variables common HTTP clients read a
// trusted CA bundle from: Go's crypto/x509 and OpenSSL (SSL_CERT_FILE),
// Node.js (NODE_EXTRA_CA_CERTS, added to its own roots), Python requests
// (REQUESTS_CA_BUNDLE) and curl (CURL_CA_BUNDLE). All but Node's replace the
// system roots, which is why Env.CAFile carries them after the run's CA.
var CAVariables = []string{"SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"}
