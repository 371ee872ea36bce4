package reports

import (
	"encoding/json"
	"fmt"
	"time"
)

// Duration is a time.Duration that marshals to JSON as a Go duration string
// ("1.5s") and back without loss. Unmarshal also accepts a bare number of
// nanoseconds. The zero value is "0s".
type Duration time.Duration

var (
	_ json.Marshaler   = Duration(0)
	_ json.Unmarshaler = (*Duration)(nil)
)

// Std returns d as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

// String formats d like time.Duration.String.
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON encodes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON decodes a duration string or a number of nanoseconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var n int64
		if err := json.Unmarshal(b, &n); err != nil {
			return fmt.Errorf("reports: duration %s: want a string like \"1.5s\"", b)
		}
		*d = Duration(n)
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	*d = Duration(v)
	return nil
}
