package check

import (
	"fmt"
	"strings"
	"time"
)

// Describe renders a reply for a report line.
func Describe(r Reply) string {
	if r.Err != nil {
		return "transport error (" + r.Err.Error() + ")"
	}
	if r.GRPC != nil && r.GRPC.Message != "" {
		// The code the target sent, then the status it is judged as.
		return fmt.Sprintf("%s %q, judged as %d", r.GRPC.Code, r.GRPC.Message, r.Status)
	}
	if r.GRPC != nil {
		return fmt.Sprintf("%s, judged as %d", r.GRPC.Code, r.Status)
	}
	return fmt.Sprintf("%d", r.Status)
}

// Excerpt shortens a body for a report line.
func Excerpt(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// raMs renders a duration in milliseconds for report lines.
func Ms(d time.Duration) string {
	if d > -10*time.Millisecond && d < 10*time.Millisecond {
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%d ms", d.Milliseconds())
}
