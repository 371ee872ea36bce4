package certify

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/targets"
)

// specProbe adapts a probe of spec t (effects.probe, webhooks.effects.probe)
// to the harness: it renders p for one (tenant, key), sends it straight to
// the service at base (not through the front proxy, so reading a count
// neither meets the check's faults nor becomes its evidence) and reads the
// count. nil when p is the zero Probe. Callers call closeIdle when the run ends, so
// the probe's kept-alive connections do not outlive it.
func specProbe(t *targets.Target, p targets.Probe, base string, tlsConfig *tls.Config) (probe func(context.Context, check.Values) (int, error), closeIdle func()) {
	return specRead(t, p, base, tlsConfig, targets.CountPath.Count)
}

// specState adapts a state probe (webhooks.ordering.state) as specProbe
// adapts a count probe: it reads the value its path locates.
func specState(t *targets.Target, s targets.StateProbe, base string, tlsConfig *tls.Config) (state func(context.Context, check.Values) (string, error), closeIdle func()) {
	return specRead(t, s.Probe(), base, tlsConfig, targets.CountPath.Value)
}

// specRead is specProbe and specState: read turns the answer's body into
// what the probe reports, by p's path.
func specRead[T any](t *targets.Target, p targets.Probe, base string, tlsConfig *tls.Config, read func(targets.CountPath, []byte) (T, error)) (probe func(context.Context, check.Values) (T, error), closeIdle func()) {
	var zero T
	if p.URL == "" {
		return nil, func() {}
	}
	path, err := targets.ParseCountPath(p.Count)
	if err != nil {
		return func(context.Context, check.Values) (T, error) { return zero, err }, func() {}
	}
	tr := t.Service.Protocol.Transport(&http.Transport{TLSClientConfig: tlsConfig}) // no proxy from the environment: the service is direct
	client := &http.Client{Transport: tr}
	return func(ctx context.Context, v check.Values) (T, error) {
		u, hd, err := p.RenderURL(base, targets.RequestValues{Key: v.Key, Tenant: v.Tenant, Amount: v.Amount, Seq: v.Seq})
		if err != nil {
			return zero, err
		}
		req, err := http.NewRequestWithContext(ctx, p.Method, u, nil)
		if err != nil {
			return zero, fmt.Errorf("certify: probe: %w", err)
		}
		req.Header = hd
		if th := t.Tenancy.Header; th != "" && !t.Tenancy.Disabled && v.Tenant != "" && req.Header.Get(th) == "" {
			req.Header.Set(th, v.Tenant)
		}
		if v.Tenant != "" {
			th, _ := t.Tenancy.TenantHeaders(v.Tenant) // rendered once by validation: cannot fail
			for k, vs := range th {
				if _, set := req.Header[k]; !set {
					req.Header[k] = vs
				}
			}
		}
		resp, err := client.Do(req)
		if err != nil {
			return zero, fmt.Errorf("certify: probe: %w", err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if err != nil {
			return zero, fmt.Errorf("certify: probe %s: %w", u, err)
		}
		if resp.StatusCode/100 != 2 {
			return zero, fmt.Errorf("certify: probe %s answered %d", u, resp.StatusCode)
		}
		return read(path, body)
	}, tr.CloseIdleConnections
}
