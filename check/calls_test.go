package check

import (
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/faults"
)

// TestEntryBudget: a journaled request's budget is read from any deadline
// header the journal records, and a malformed one is an error.
func TestEntryBudget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		headers map[string]string
		want    time.Duration
		ok, err bool
	}{
		{"milliseconds", map[string]string{"X-Request-Timeout-Ms": "450"}, 450 * time.Millisecond, true, false},
		{"grpc", map[string]string{"Grpc-Timeout": "250m"}, 250 * time.Millisecond, true, false},
		{"envoy expected", map[string]string{"X-Envoy-Expected-Rq-Timeout-Ms": "90"}, 90 * time.Millisecond, true, false},
		{"none", map[string]string{"Idempotency-Key": "k"}, 0, false, false},
		{"malformed", map[string]string{"Grpc-Timeout": "1.5S"}, 0, false, true},
		{"repeated", map[string]string{"X-Request-Timeout-Ms": "10, 20"}, 0, false, true},
	}
	for _, tt := range tests {
		d, ok, err := EntryBudget(faults.Entry{Headers: tt.headers})
		if d != tt.want || ok != tt.ok || (err != nil) != tt.err {
			t.Errorf("%s: got %s, %v, %v; want %s, %v, error %v", tt.name, d, ok, err, tt.want, tt.ok, tt.err)
		}
	}
}
