package store

import (
	"database/sql"
	"fmt"
	"time"
)

// Times are kept with microsecond precision in UTC by both backends, so a
// record reads back equal (==) to what was written after Truncate(time.Microsecond).

// toMicros maps t to Unix microseconds; the zero time maps to its own (very
// negative) value and back, so zero survives a round trip.
func toMicros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

// toNullMicros stores the zero ExpiresAt as NULL: a record that never expires.
func toNullMicros(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMicro(), Valid: true}
}

// nonNil keeps NOT NULL body columns satisfied for a nil body.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// checkFinal rejects a Complete that would leave the record in progress.
func checkFinal(s State) error {
	if s != Succeeded && s != Failed {
		return fmt.Errorf("store: complete: state %q is not final (want %q or %q)", s, Succeeded, Failed)
	}
	return nil
}
