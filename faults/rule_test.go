package faults

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestNewFault_Strict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		typ   string
		attrs map[string]any
		want  string // substring of the error; "" means success
	}{
		{"ok", "abort", map[string]any{"status": 503, "headers": map[string]any{"Retry-After": 1}}, ""},
		{"typo", "delay", map[string]any{"duration": "1s", "jiter": "5ms"}, `jiter: unknown attribute (known: duration, jitter, phase)`},
		{"wrong type", "abort", map[string]any{"status": "x"}, "status: want an integer"},
		{"fraction", "abort", map[string]any{"status": 429.5}, "want an integer"},
		{"bad duration", "delay", map[string]any{"duration": "soon"}, "want a duration"},
		{"invalid", "abort", map[string]any{"status": 42}, "status 42 not in"},
		{"unknown type", "explode", nil, "unknown fault type"},
		{"bad template", "respond", map[string]any{"body": "{{.Nope"}, "body template"},
		{"bad mode", "drop-response", map[string]any{"mode": "vanish"}, `mode "vanish"`},
		{"copies", "duplicate", map[string]any{"copies": 1}, "copies 1"},
		{"throttle rate", "throttle", map[string]any{}, "rate must be"},
		{"latency share", "latency", map[string]any{"fast": "20ms", "slow": "1s", "slow_share": 5}, "slow_share 5 not in [0, 1]"},
		{"latency typo", "latency", map[string]any{"p95": "1s"}, "p95: unknown attribute (known: fast, jitter, max, p50, p90, p99, phase, slow, slow_share)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewFault(tt.typ, tt.attrs)
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("NewFault(%q, %v) = %v; want %q", tt.typ, tt.attrs, err, tt.want)
			}
		})
	}
}

func TestRule_JSONRoundTrip(t *testing.T) {
	t.Parallel()
	rules := []Rule{
		{Name: "d", Match: Match{Method: "POST", Path: "/v1/*", Headers: map[string]string{"Idempotency-Key": "k-*"}, First: 2}, Fault: &Delay{Duration: 250 * time.Millisecond, Jitter: time.Millisecond, Phase: "response"}},
		{Name: "a", Match: Match{Every: 3, Probability: 0.5, Missing: []string{"X-Tenant-Id"}}, Fault: &Abort{Status: 429, Headers: map[string]string{"Retry-After": "1"}, Body: "slow down"}},
		{Name: "dr", Match: Match{After: 1, Limit: 4}, Fault: &DropResponse{Mode: "status", Hold: time.Second, Status: 504}},
		{Name: "r", Fault: &Reset{Hold: time.Millisecond}},
		{Name: "b", Fault: &Blackhole{Timeout: 2 * time.Second, Mode: "reset"}},
		{Name: "dup", Fault: &Duplicate{Copies: 3, Concurrent: true, Answer: "first", Gap: time.Millisecond}},
		{Name: "t", Fault: &Throttle{Rate: 100, Chunk: 10}},
		{Name: "ga", Fault: &GoAway{}},
		{Name: "gs", Fault: &GRPCStatus{Code: 8, Message: "slow down", Pushback: 250 * time.Millisecond, Delay: time.Millisecond}},
		{Name: "lb", Fault: &Latency{Fast: 20 * time.Millisecond, Slow: time.Second, SlowShare: 0.05, Jitter: time.Millisecond, Phase: "response"}},
		{Name: "lq", Fault: &Latency{P50: 20 * time.Millisecond, P90: 50 * time.Millisecond, P99: 400 * time.Millisecond, Max: time.Second}},
		{Name: "tr", Fault: &Truncate{Bytes: 5, Mode: "reset"}},
		{Name: "resp", Fault: &Respond{Status: 201, Body: `{"key":"{{.Header "Idempotency-Key"}}"}`, Delay: time.Second}},
	}
	for _, r := range rules {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var got Rule
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("Unmarshal(%s): %v", b, err)
		}
		if !reflect.DeepEqual(got, r) {
			t.Errorf("round trip of %s:\n got %#v\nwant %#v", b, got, r)
		}
	}
}

func TestRule_UnmarshalJSON_Errors(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"name":"x","fault":{"type":"abort","status":503},"extra":1}`, "extra: unknown key"},
		{`{"fault":{"type":"abort","status":503}}`, "needs a name"},
		{`{"name":"x","match":{"probability":0},"fault":{"type":"abort","status":503}}`, "match.probability"},
		{`{"name":"x","match":{"probability":1.5},"fault":{"type":"abort","status":503}}`, "probability 1.5"},
		{`{"name":"x","match":{"pth":"/"},"fault":{"type":"abort","status":503}}`, "match.pth: unknown attribute"},
		{`{"name":"x","fault":{"status":503}}`, "fault.type: missing fault type"},
		{`{"name":"x","fault":{"type":"abort","status":503,"stauts":1}}`, "fault.stauts: unknown attribute"},
	}
	for _, tt := range tests {
		var r Rule
		err := json.Unmarshal([]byte(tt.in), &r)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Unmarshal(%s) = %v; want %q", tt.in, err, tt.want)
		}
	}
}

func TestRules_AddRemove(t *testing.T) {
	t.Parallel()
	rs := newRules(1)
	if err := rs.Add(Rule{Name: "a", Fault: Abort{Status: 503}}); err != nil {
		t.Fatal(err)
	}
	if err := rs.Add(Rule{Name: "a", Fault: Abort{Status: 503}}); !errors.Is(err, ErrDuplicateRule) {
		t.Fatalf("duplicate: %v", err)
	}
	if err := rs.Add(Rule{Name: "b", Fault: Abort{}}); !errors.Is(err, ErrInvalidRule) {
		t.Fatalf("invalid: %v", err)
	}
	if err := rs.Add(Rule{Name: "c", Fault: fakeFault{}}); err == nil {
		t.Fatal("unregistered fault type accepted")
	}
	if !rs.Remove("a") || rs.Remove("a") || len(rs.List()) != 0 {
		t.Fatal("remove")
	}
}

type fakeFault struct{}

func (fakeFault) Inject(ex *Exchange) error { return ex.Pass() }
