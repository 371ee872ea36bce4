package faults

import (
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics holds one proxy's Prometheus collectors in a registry of its own,
// so several proxies in one process do not collide.
type metrics struct {
	reg       *prometheus.Registry
	exchanges *prometheus.CounterVec
	faults    *prometheus.CounterVec
	inflight  prometheus.Gauge
}

func newMetrics(p *Proxy) *metrics {
	side := prometheus.Labels{"side": p.side}
	m := &metrics{
		reg: prometheus.NewRegistry(),
		exchanges: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "resilcheck_proxy_exchanges_total", ConstLabels: side,
			Help: "Exchanges finished, by status sent to the client (0: none) and outcome.",
		}, []string{"status", "outcome"}),
		faults: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "resilcheck_proxy_faults_injected_total", ConstLabels: side,
			Help: "Requests handed to a rule's fault, by rule and fault type.",
		}, []string{"rule", "fault"}),
		inflight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "resilcheck_proxy_inflight_exchanges", ConstLabels: side,
			Help: "Exchanges in progress.",
		}),
	}
	j := p.journal
	m.reg.MustRegister(m.exchanges, m.faults, m.inflight,
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "resilcheck_proxy_journal_dropped_total", ConstLabels: side,
			Help: "Journal entries evicted because the journal was full.",
		}, func() float64 { return float64(j.Dropped()) }),
	)
	return m
}

func (m *metrics) injected(rule, fault string) { m.faults.WithLabelValues(rule, fault).Inc() }

func (m *metrics) exchange(e *Entry) {
	m.exchanges.WithLabelValues(strconv.Itoa(e.Status), e.Outcome).Inc()
}

// MetricsHandler serves the proxy's metrics in the Prometheus text format.
func (p *Proxy) MetricsHandler() http.Handler {
	return promhttp.HandlerFor(p.metrics.reg, promhttp.HandlerOpts{})
}

// Gatherer exposes the proxy's metrics for merging into another registry.
func (p *Proxy) Gatherer() prometheus.Gatherer { return p.metrics.reg }
