package certify

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
)

// keyedSpec declares two operations, a PUT effect at the ledger, a probe,
// tenants and a key TTL; %s is extra policy.
const keyedSpec = `version: 1
kind: running
service: {url: "http://127.0.0.1:1"}
operations:
  - {name: pay, path: /v1/payments, body: '{"a": {{.Amount}}}'}
  - {name: order, method: PUT, path: '/v1/orders/{{.Key}}', body: '{"a": {{.Amount}}}', success: [200], key_header: X-Order-Key}
dependencies: [{name: ledger, listen: "127.0.0.1:9", method: PUT, path: /entries/*}]
effects:
  ledger: {dependency: ledger, key_header: X-Upstream-Key}
  probe:
    url: /v1/effects?key={{.Key}}
    headers: {Authorization: "Bearer {{.Tenant}}"}
    count: $.effects.count
tenancy: {header: X-Account, tenants: [acme, globex]}
conventions: {key_ttl: 90s}
%s`

// TestSpecKeyedOperations: every operation by default, only those
// policy.idempotency.operations names otherwise, each with its method and
// the ledger dependency's effect method and path.
func TestSpecKeyedOperations(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		policy string
		want   []string
	}{
		{"", []string{"pay", "order"}},
		{"policy: {idempotency: {operations: [order]}}", []string{"order"}},
	} {
		ops := specKeyedOperations(parseSpec(t, fmt.Sprintf(keyedSpec, c.policy)))
		var names []string
		for _, op := range ops {
			names = append(names, op.Name)
			if op.EffectMethod != http.MethodPut || op.EffectPath != "/entries/*" {
				t.Errorf("%s: effect %s %s, want PUT /entries/*", op.Name, op.EffectMethod, op.EffectPath)
			}
		}
		if !slices.Equal(names, c.want) {
			t.Errorf("policy %q: keyed operations %v, want %v", c.policy, names, c.want)
		}
		last := ops[len(ops)-1]
		r, err := last.Request(check.Values{Key: "k1"}, false)
		if err != nil || r.Method != http.MethodPut || r.Path != "/v1/orders/k1" || !slices.Equal(last.Success, []int{200}) || last.KeyHeader != "X-Order-Key" {
			t.Errorf("order renders %s %s (%v), success %v, key in %s; want PUT /v1/orders/k1, [200], X-Order-Key", r.Method, r.Path, err, last.Success, last.KeyHeader)
		}
	}
}

// TestSpecConventions_tenantsAndTTL: the declared tenants and key TTL reach
// the harness; no tenants declared means none (fresh ones per case).
func TestSpecConventions_tenantsAndTTL(t *testing.T) {
	t.Parallel()
	c := specConventions(parseSpec(t, fmt.Sprintf(keyedSpec, "")))
	if !slices.Equal(c.Tenants, []string{"acme", "globex"}) || c.KeyTTL != 90*time.Second || c.DependencyKey != "X-Upstream-Key" {
		t.Errorf("conventions: tenants %v, key TTL %s, dependency key %s", c.Tenants, c.KeyTTL, c.DependencyKey)
	}
	bare := parseSpec(t, "version: 1\nkind: running\nservice: {url: \"http://127.0.0.1:1\"}\noperations: [{name: pay, path: /p}]\n"+
		"dependencies: [{name: d, listen: \"127.0.0.1:9\"}]\neffects: {ledger: {dependency: d}}\n")
	if c := specConventions(bare); len(c.Tenants) != 0 {
		t.Errorf("no tenants declared, harness gets %v", c.Tenants)
	}
}

// TestSpecProbe reads the count the spec's probe locates, with the probe's
// method, URL and headers rendered for the (tenant, key) and the tenant
// header set; a failing probe is an error, no probe is nil.
func TestSpecProbe(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/v1/effects" || r.Header.Get("Authorization") != "Bearer "+r.Header.Get("X-Account") {
			http.Error(w, "bad probe", http.StatusBadRequest)
			return
		}
		n := map[string]int{"k1": 1, "k2": 3}[r.URL.Query().Get("key")]
		fmt.Fprintf(w, `{"effects": {"count": %d}}`, n)
	}))
	defer srv.Close()
	keyed := parseSpec(t, fmt.Sprintf(keyedSpec, ""))
	probe, closeIdle := specProbe(keyed, keyed.Effects.Probe, srv.URL, nil)
	defer closeIdle()
	ctx := context.Background()
	for key, want := range map[string]int{"k1": 1, "k2": 3, "k3": 0} {
		if n, err := probe(ctx, check.Values{Key: key, Tenant: "acme"}); err != nil || n != want {
			t.Errorf("probe(%s) = %d, %v; want %d", key, n, err, want)
		}
	}
	if _, err := probe(ctx, check.Values{Key: "k1"}); err == nil {
		t.Error("a probe the service refuses (no tenant) read a count")
	}
	posting := parseSpec(t, strings.Replace(fmt.Sprintf(keyedSpec, ""), "  probe:\n", "  probe:\n    method: POST\n", 1))
	post, closePost := specProbe(posting, posting.Effects.Probe, srv.URL, nil)
	defer closePost()
	if _, err := post(ctx, check.Values{Key: "k1", Tenant: "acme"}); err == nil {
		t.Error("a POST probe was sent as GET")
	}
	noProbe := parseSpec(t, "version: 1\nkind: running\nservice: {url: \"http://127.0.0.1:1\"}\noperations: [{name: pay, path: /p}]\n"+
		"dependencies: [{name: d, listen: \"127.0.0.1:9\"}]\neffects: {ledger: {dependency: d}}\n")
	if p, _ := specProbe(noProbe, noProbe.Effects.Probe, srv.URL, nil); p != nil {
		t.Error("a spec without a probe got one")
	}
}
