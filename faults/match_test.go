package faults

import (
	"net/http/httptest"
	"slices"
	"testing"
)

func TestGlob(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"/v1/payments*", "/v1/payments", true},
		{"/v1/payments*", "/v1/payments/123/refunds", true},
		{"/v1/*/refunds", "/v1/p/q/refunds", true},
		{"/v1/?", "/v1/a", true},
		{"/v1/?", "/v1/ab", false},
		{"/charges", "/charges/1", false},
		{"*", "", true},
		{"a*b*c", "aXbYbZc", true},
		{"a*b*c", "aXbYbZ", false},
	}
	for _, tt := range tests {
		if got := glob(tt.pattern, tt.s); got != tt.want {
			t.Errorf("glob(%q, %q) = %v; want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
}

// decisions runs n requests through one rule and lists which were faulted.
func decisions(t *testing.T, seed uint64, m Match, n int, extra ...Rule) []int {
	t.Helper()
	rs := newRules(seed)
	for _, r := range extra {
		if err := rs.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := rs.Add(Rule{Name: "under-test", Match: m, Fault: Abort{Status: 503}}); err != nil {
		t.Fatal(err)
	}
	var hit []int
	for i := 1; i <= n; i++ {
		r := httptest.NewRequest("POST", "/charges", nil)
		if s, _ := rs.match(r); s != nil && s.Name == "under-test" {
			hit = append(hit, i)
		}
	}
	return hit
}

func TestMatch_Counters(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		m    Match
		want []int
	}{
		{"first", Match{First: 2}, []int{1, 2}},
		{"every", Match{Every: 3}, []int{3, 6, 9}},
		{"after", Match{After: 8}, []int{9, 10}},
		{"after+limit", Match{After: 2, Limit: 3}, []int{3, 4, 5}},
		{"method mismatch", Match{Method: "GET"}, nil},
		{"path", Match{Method: "post", Path: "/char*", First: 1}, []int{1}},
	}
	for _, tt := range tests {
		if got := decisions(t, 1, tt.m, 10); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %+v faulted %v; want %v", tt.name, tt.m, got, tt.want)
		}
	}
}

func TestMatch_ProbabilityIsSeeded(t *testing.T) {
	t.Parallel()
	m := Match{Probability: 0.5}
	a, b := decisions(t, 42, m, 200), decisions(t, 42, m, 200)
	if !slices.Equal(a, b) {
		t.Fatalf("same seed, different decisions:\n%v\n%v", a, b)
	}
	if len(a) < 60 || len(a) > 140 {
		t.Fatalf("p=0.5 faulted %d of 200", len(a))
	}
	if c := decisions(t, 43, m, 200); slices.Equal(a, c) {
		t.Fatal("different seeds gave identical decisions")
	}
	// Another rule that never takes the request must not perturb the draws.
	other := Rule{Name: "other", Match: Match{Method: "GET", Probability: 0.5}, Fault: Abort{Status: 500}}
	if d := decisions(t, 42, m, 200, other); !slices.Equal(a, d) {
		t.Fatal("an unrelated rule changed the decisions")
	}
}

func TestMatch_Headers(t *testing.T) {
	t.Parallel()
	m := Match{Headers: map[string]string{"idempotency-key": "k-123"}, Missing: []string{"X-Tenant-Id"}}
	r := httptest.NewRequest("POST", "/", nil)
	if m.static(r) {
		t.Fatal("matched without the header")
	}
	r.Header.Set("Idempotency-Key", "k-123")
	if !m.static(r) {
		t.Fatal("did not match the header")
	}
	r.Header.Set("X-Tenant-ID", "t1")
	if m.static(r) {
		t.Fatal("matched although X-Tenant-Id is present")
	}
	any := Match{Headers: map[string]string{"X-Attempt": "*"}}
	if any.static(httptest.NewRequest("GET", "/", nil)) {
		t.Fatal("presence matched an absent header")
	}
}
