package certify

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/resilcheck/resilcheck/targets"
)

// preflightDial bounds the preflight's wait for each dependency's upstream
// to accept a connection, and preflightRetry paces its attempts.
const (
	preflightDial  = 2 * time.Second
	preflightRetry = 100 * time.Millisecond
)

// UnreachableError says a dependency's real upstream did not accept a TCP
// connection within the 2 s the preflight gives it before the first check: every check
// would then judge the dependency's absence, not the target. It matches
// ErrUnhealthy (errors.Is): the run is inconclusive (exit 3).
type UnreachableError struct {
	Dependency string // the dependency's name in the spec; empty for a tier
	Tier       string // the tier's name in the spec; empty for a dependency
	Upstream   string // the upstream URL its proxy forwards to
	Err        error  // the dial error, which names the address
}

// Error names the dependency, its upstream and the dial error.
func (e *UnreachableError) Error() string { return "certify: " + e.what() }

func (e *UnreachableError) what() string {
	if e.Tier != "" {
		return fmt.Sprintf("tier %s is unreachable at %s, where its hop proxy forwards: %v", e.Tier, e.Upstream, e.Err)
	}
	return fmt.Sprintf("dependency %s is unreachable at its upstream %s: %v", e.Dependency, e.Upstream, e.Err)
}

// Is makes errors.Is(err, ErrUnhealthy) true.
func (e *UnreachableError) Is(target error) bool { return target == ErrUnhealthy }

// Unwrap returns the dial error.
func (e *UnreachableError) Unwrap() error { return e.Err }

// unreachableErrors are the preflight's failures, in the spec's order, on
// one line: the report's reason for aborting is the message's first line.
type unreachableErrors []*UnreachableError

func (es unreachableErrors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.what()
	}
	return "certify: " + strings.Join(msgs, "; ")
}

func (es unreachableErrors) Unwrap() []error {
	errs := make([]error, len(es))
	for i, e := range es {
		errs[i] = e
	}
	return errs
}

// realUpstream is a dependency's real upstream, or a tier's address, as
// its proxy forwards to it.
type realUpstream struct {
	name, url string
	tier      bool
}

// preflight connects once to every dependency's upstream and every tier
// behind the first, all at once, each for at most preflightDial: those the
// spec gives and those a launcher started and placed. It returns nil when
// every one accepted, else an error wrapping an *UnreachableError for each
// that did not.
func (e *environment) preflight(ctx context.Context) error {
	e.mu.Lock()
	ups := slices.Clone(e.upstream)
	e.mu.Unlock()
	slices.SortStableFunc(ups, func(a, b realUpstream) int {
		return cmp.Compare(e.specIndex(a), e.specIndex(b))
	})
	errs := make([]*UnreachableError, len(ups))
	var wg sync.WaitGroup
	for i, u := range ups {
		wg.Go(func() {
			var tlsConfig *tls.Config // a tier's hop proxy verifies by the system roots
			if !u.tier {
				tlsConfig = e.tls.upstreamConfig(u.name)
			}
			if err := dialUpstream(ctx, u.url, tlsConfig); err != nil {
				errs[i] = &UnreachableError{Dependency: u.name, Upstream: u.url, Err: err}
				if u.tier {
					errs[i].Dependency, errs[i].Tier = "", u.name
				}
			}
		})
	}
	wg.Wait()
	var failed unreachableErrors
	for _, err := range errs {
		if err != nil {
			failed = append(failed, err)
		}
	}
	switch {
	case len(failed) == 0:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("certify: stopped while reaching the dependencies and tiers: %w", ctx.Err())
	case len(failed) == 1:
		return failed[0]
	}
	return failed
}

// specIndex orders upstreams as the spec does: dependencies, then tiers.
func (e *environment) specIndex(u realUpstream) int {
	if u.tier {
		return len(e.spec.Dependencies) + slices.IndexFunc(e.spec.Tiers, func(t targets.Tier) bool { return t.Name == u.name })
	}
	return slices.IndexFunc(e.spec.Dependencies, func(d targets.Dependency) bool { return d.Name == u.name })
}

// dialUpstream connects to the host and port of rawURL (the scheme's port
// when it names none) and closes the connection; for https it first
// completes a TLS handshake verified with tlsConfig (nil: the system
// roots), as the proxy will (see verifyUpstream). A refused connection is
// tried again every preflightRetry for preflightDial in all, so a
// dependency started beside the target (a compose service, a process the
// target's command starts) may come up a moment after it; the error is the
// last dial's that did not merely run out of time, else the timeout.
func dialUpstream(ctx context.Context, rawURL string, tlsConfig *tls.Config) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return err
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if u.Hostname() == "" || port == "" {
		return errors.New("no host and port to dial")
	}
	addr := net.JoinHostPort(u.Hostname(), port)
	ctx, cancel := context.WithTimeout(ctx, preflightDial)
	defer cancel()
	var d net.Dialer
	var last error
	for {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err == nil && u.Scheme == "https" {
			return verifyUpstream(ctx, c, u.Hostname(), tlsConfig)
		}
		if err == nil {
			return c.Close()
		}
		if last == nil || ctx.Err() == nil {
			last = err
		}
		select {
		case <-ctx.Done():
			return last
		case <-time.After(preflightRetry):
		}
	}
}
