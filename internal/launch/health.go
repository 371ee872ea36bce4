package launch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/targets"
)

// Health polling pace: quick at first (a process usually comes up within
// milliseconds), then at most twice a second.
const (
	healthFirstDelay  = 25 * time.Millisecond
	healthMaxDelay    = 500 * time.Millisecond
	healthAttemptTime = 2 * time.Second // one GET's bound, so a hung service cannot stall the wait
)

// errDied is returned by waitHealthy when the died channel closes.
var errDied = errors.New("targets: process died")

// healthURL joins a health path to the service's base URL.
func healthURL(base, health string) string {
	if strings.HasPrefix(health, "/") {
		return strings.TrimSuffix(base, "/") + health
	}
	return health
}

// HealthPort is the protocol of the port health is on: the service's,
// proto, for a path under its URL; the HTTP/1.1 default (HTTP/2 by ALPN
// over TLS) for an absolute URL, a port of its own.
func HealthPort(health string, proto targets.Protocol) targets.Protocol {
	if health == "" || strings.HasPrefix(health, "/") { // "" is the default path
		return proto
	}
	return ""
}

// WaitHealthy GETs url until it answers 2xx, without any proxy from the
// environment and with each attempt bounded. It returns an *UnhealthyError
// (matching ErrUnhealthy) when timeout passes, or ctx's error when ctx is
// cancelled.
func WaitHealthy(ctx context.Context, url string, timeout time.Duration) error {
	return waitHealthy(ctx, url, timeout, nil, nil, "")
}

// WaitHealthyTLS is WaitHealthy verifying an https url with tlsConfig, as
// Env.ServiceTLS says (the spec's service.ca or insecure; nil = the system
// roots), and speaking proto to url's port (HealthPort).
func WaitHealthyTLS(ctx context.Context, url string, timeout time.Duration, tlsConfig *tls.Config, proto targets.Protocol) error {
	return waitHealthy(ctx, url, timeout, nil, tlsConfig, proto)
}

// WaitHealthyOver is WaitHealthy speaking proto to url's port (HealthPort;
// the gRPC health method speaks HTTP/2 whatever proto says).
func WaitHealthyOver(ctx context.Context, url string, timeout time.Duration, proto targets.Protocol) error {
	return waitHealthy(ctx, url, timeout, nil, nil, proto)
}

// waitHealthy GETs url until it answers 2xx, timeout passes (an
// *UnhealthyError), ctx is cancelled (ctx's error) or died closes (errDied).
// A url naming the gRPC health method is called by that protocol instead
// (probeGRPCHealth). tlsConfig verifies an https target; nil = the system
// roots. proto is what url's port speaks (HealthPort).
func waitHealthy(ctx context.Context, target string, timeout time.Duration, died <-chan struct{}, tlsConfig *tls.Config, proto targets.Protocol) error {
	tr := healthProtocol(target, proto).Transport(&http.Transport{DisableKeepAlives: true, TLSClientConfig: tlsConfig}) // no proxy from the environment: targets are direct
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	start := time.Now()
	deadline := start.Add(timeout)
	ue := &UnhealthyError{URL: target}
	for delay := healthFirstDelay; ; delay = min(2*delay, healthMaxDelay) {
		ue.Attempts++
		status, err := probeOnce(ctx, client, target, min(healthAttemptTime, time.Until(deadline)))
		if err == nil && status >= 200 && status < 300 {
			return nil
		}
		// An attempt cut short by the deadline must not hide the status an
		// earlier one saw: "503" says more than "deadline exceeded".
		if status != 0 {
			ue.LastStatus = status
		}
		// Nor may it hide what an earlier attempt failed with.
		if err == nil || ue.LastErr == nil || time.Until(deadline) > 0 {
			ue.LastErr = err
		}
		if errors.Is(ctx.Err(), context.Canceled) {
			return fmt.Errorf("targets: waiting for %s: %w", target, ctx.Err())
		}
		wait := min(delay, time.Until(deadline))
		if wait <= 0 || ctx.Err() != nil {
			ue.Elapsed = time.Since(start)
			return ue
		}
		timer := time.NewTimer(wait)
		select {
		case <-died:
			timer.Stop()
			return errDied
		case <-ctx.Done():
			timer.Stop()
		case <-timer.C:
		}
	}
}

// probeOnce makes one bounded GET (or gRPC health call) and returns its
// status or transport error.
func probeOnce(ctx context.Context, client *http.Client, target string, limit time.Duration) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, max(limit, time.Millisecond))
	defer cancel()
	if isGRPCHealth(target) {
		return probeGRPCHealth(ctx, client, target)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, withoutURL(err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return resp.StatusCode, nil
}

// withoutURL drops a client error's repeated `Get "URL":` prefix:
// UnhealthyError names the URL.
func withoutURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
