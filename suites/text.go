package suites

import (
	"fmt"
	"strings"
	"time"
)

// describe renders a reply for a report line.
func describe(r reply) string {
	if r.err != nil {
		return "transport error (" + r.err.Error() + ")"
	}
	return fmt.Sprintf("%d", r.status)
}

// excerpt shortens a body for a report line.
func excerpt(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// raMs renders a duration in milliseconds for report lines.
func raMs(d time.Duration) string {
	if d > -10*time.Millisecond && d < 10*time.Millisecond {
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%d ms", d.Milliseconds())
}
