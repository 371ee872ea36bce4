package faults

import dto "github.com/prometheus/client_model/go"

// LastSeq returns the Seq of the newest entry recorded, 0 if none; pass it
// to After to see only what happens from now on.
func (j *Journal) LastSeq() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.next - 1
}

// InFlight returns the number of exchanges the proxy has begun and not yet
// recorded in its journal; zero means the journal is complete up to now.
func (p *Proxy) InFlight() int {
	var m dto.Metric
	if err := p.metrics.inflight.Write(&m); err != nil {
		return 0
	}
	return int(m.GetGauge().GetValue())
}
