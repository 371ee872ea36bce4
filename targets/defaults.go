package targets

import (
	"path/filepath"
	"strings"
	"time"
)

// Documented defaults, applied by Defaults.
const (
	DefaultHealth         = "/healthz"
	DefaultKeyHeader      = "Idempotency-Key"
	DefaultTenantHeader   = "X-Tenant-ID"
	DefaultProcessURL     = "http://127.0.0.1:{{.Port}}"
	DefaultStartupTimeout = 30 * time.Second // kind process and reference
	DefaultRunningTimeout = 5 * time.Second  // kind running
	DefaultStopGrace      = 5 * time.Second
	DefaultKeyTTL         = 24 * time.Hour
	DefaultMaxBudget      = 10 * time.Second
	defaultProbeCount     = "$"
	defaultMethod         = "POST"
	defaultProbeMethod    = "GET"
	defaultContentType    = "application/json"
	defaultTargetName     = "target"
)

// Defaults fills every zero value with its documented default, in place. It
// is idempotent; Parse and Load call it after validating, so callers only
// need it for Targets built in Go. A kind given with WithKinds first fills
// in what it knows about its service (kind reference: the reference stack's
// operations, dependencies, effects and policy).
func (t *Target) Defaults(opts ...Option) {
	if t.Version == 0 {
		t.Version = Version
	}
	if t.Kind == "" {
		t.Kind = KindRunning
		switch {
		case !isZero(t.Process):
			t.Kind = KindProcess
		case !isZero(t.Reference):
			t.Kind = KindReference
		case !isZero(t.Compose):
			t.Kind = KindCompose
		case !isZero(t.Client):
			t.Kind = KindClient
		}
	}
	if k, _ := newOptions(opts).kind(t.Kind); k.Defaults != nil {
		k.Defaults(t)
	}
	if t.Name == "" {
		t.Name = defaultTargetName
	}
	if t.Kind != KindClient {
		t.defaultService()
	}
	if t.Kind == KindProcess {
		t.defaultProcess()
	}
	if t.Kind == KindClient {
		t.defaultClient()
	}
	for i := range t.Operations {
		t.Operations[i].defaults()
	}
	for i := range t.Dependencies {
		if t.Dependencies[i].Method == "" {
			t.Dependencies[i].Method = defaultMethod
		}
	}
	t.defaultEffects()
	t.defaultWebhooks()
	t.defaultQueueConsumer()
	t.defaultTenancy()
	t.defaultConventions()
}

func (t *Target) defaultService() {
	s := &t.Service
	if s.URL == "" && t.Kind == KindProcess {
		s.URL = DefaultProcessURL
	}
	if s.Health == "" {
		s.Health = DefaultHealth
	}
	if s.StartupTimeout == 0 {
		s.StartupTimeout = DefaultStartupTimeout
		if t.Kind == KindRunning {
			s.StartupTimeout = DefaultRunningTimeout
		}
	}
}

func (t *Target) defaultProcess() {
	p := &t.Process
	if !filepath.IsAbs(p.Dir) {
		// Relative to the spec's directory, made absolute so Defaults stays idempotent.
		dir := filepath.Join(t.Dir, p.Dir)
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		p.Dir = dir
	}
	if p.StopGrace == 0 {
		p.StopGrace = DefaultStopGrace
	}
}

func (o *Operation) defaults() {
	if o.Path == "" && o.GRPC.Declared() {
		o.Path = o.GRPC.Method
	}
	if o.Method == "" {
		o.Method = defaultMethod
	}
	if o.KeyHeader == "" {
		o.KeyHeader = DefaultKeyHeader
	}
	if o.ContentType == "" && o.Body != "" {
		o.ContentType = defaultContentType
	}
}

func (t *Target) defaultEffects() {
	if l := &t.Effects.Ledger; l.Dependency != "" && l.KeyHeader == "" {
		l.KeyHeader = DefaultKeyHeader
	}
	t.Effects.Probe.defaults()
}

func (p *Probe) defaults() {
	if p.URL == "" {
		return
	}
	if p.Method == "" {
		p.Method = defaultProbeMethod
	}
	if p.Count == "" {
		p.Count = defaultProbeCount
	}
}

func (t *Target) defaultWebhooks() {
	w := &t.Webhooks
	if !w.Declared() {
		return
	}
	if w.Scheme == "" {
		w.Scheme = SchemeStandard
	}
	if l := &w.Effects.Ledger; l.Dependency != "" && l.KeyHeader == "" {
		l.KeyHeader = DefaultKeyHeader
	}
	w.Effects.Probe.defaults()
}

func (t *Target) defaultTenancy() {
	tn := &t.Tenancy
	if tn.Disabled {
		tn.Header, tn.Tenants = "", nil
		return
	}
	if tn.Header == "" {
		tn.Header = DefaultTenantHeader
	}
}

func (t *Target) defaultConventions() {
	c := &t.Conventions
	if c.Profile == "" {
		c.Profile = ProfileIETF
	}
	if c.KeyFormat == "" {
		c.KeyFormat = KeyToken
	}
	if c.DeadlineHeader == "" {
		c.DeadlineHeader = DeadlineRequestTimeoutMs
	}
	for _, h := range deadlineHeaders {
		if strings.EqualFold(h, c.DeadlineHeader) {
			c.DeadlineHeader = h
		}
	}
	if c.KeyTTL == 0 {
		c.KeyTTL = DefaultKeyTTL
	}
	if c.MaxBudget == 0 {
		c.MaxBudget = DefaultMaxBudget
	}
}
