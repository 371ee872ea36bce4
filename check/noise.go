package check

import (
	"context"
	"fmt"
	"io"
	"net"
	"slices"
	"time"
)

// RunnerNoise is how much the machine the harness runs on delays what it
// times: the 99th percentile of a loopback TCP round trip and of a 1 ms
// timer's overshoot, sampled before the checks run. Zero means not
// measured.
type RunnerNoise struct {
	RoundTrip, Overshoot time.Duration
	Samples              int // per measure
}

// Noise scaling: every time slack is at least noiseFactor times the worse
// of the two measures; when that exceeds maxNoiseSlack, the checks whose
// verdict rests on measured time are inconclusive ("noisy runner") rather
// than judged with slack so wide the bound means nothing.
const (
	noiseFactor   = 4
	maxNoiseSlack = 500 * time.Millisecond
)

// Slack is the least time slack the noise allows.
func (n RunnerNoise) Slack() time.Duration { return noiseFactor * max(n.RoundTrip, n.Overshoot) }

func (n RunnerNoise) String() string {
	if n.Samples == 0 {
		return "not measured"
	}
	return fmt.Sprintf("loopback round trip p99 %s, timer overshoot p99 %s (%d samples each)",
		n.RoundTrip.Round(time.Microsecond), n.Overshoot.Round(time.Microsecond), n.Samples)
}

// MeasureNoise samples the runner's noise: samples loopback round trips of
// one byte over TCP, and samples sleeps of 1 ms (about samples ms in all).
func MeasureNoise(ctx context.Context, samples int) (RunnerNoise, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return RunnerNoise{}, fmt.Errorf("check: runner noise: %w", err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		_, _ = io.Copy(c, c)
	}()
	c, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", ln.Addr().String())
	if err != nil {
		return RunnerNoise{}, fmt.Errorf("check: runner noise: %w", err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	rtt := make([]time.Duration, 0, samples)
	b := []byte{0}
	for range samples {
		start := time.Now()
		if _, err := c.Write(b); err != nil {
			return RunnerNoise{}, fmt.Errorf("check: runner noise: %w", err)
		}
		if _, err := io.ReadFull(c, b); err != nil {
			return RunnerNoise{}, fmt.Errorf("check: runner noise: %w", err)
		}
		rtt = append(rtt, time.Since(start))
	}
	over := make([]time.Duration, 0, samples)
	for range samples {
		if ctx.Err() != nil {
			return RunnerNoise{}, ctx.Err()
		}
		start := time.Now()
		time.Sleep(time.Millisecond)
		over = append(over, time.Since(start)-time.Millisecond)
	}
	return RunnerNoise{RoundTrip: p99(rtt), Overshoot: p99(over), Samples: samples}, nil
}

// p99 is the nearest-rank 99th percentile of ds.
func p99(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(ds))
	i := (len(s)*99 + 99) / 100 // ⌈0.99·n⌉, 1-based
	return s[min(i, len(s))-1]
}

// tooNoisy is why a timed check cannot be judged on this runner, or "".
func (h *Harness) tooNoisy(c Check) string {
	if s := h.Noise.Slack(); s > maxNoiseSlack && c.Timed {
		return fmt.Sprintf("%s, so time bounds would need %s of slack (%d× the worse), more than the %s a timing verdict can bear",
			h.Noise, s.Round(time.Millisecond), noiseFactor, maxNoiseSlack)
	}
	return ""
}
