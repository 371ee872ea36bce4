package targets

import (
	"strings"
	"time"
)

// Kind says how resilcheck gets hold of the service to certify.
type Kind string

// The target kinds.
const (
	KindRunning   Kind = "running"   // already listening at service.url; resilcheck only checks health
	KindProcess   Kind = "process"   // resilcheck starts process.command and stops it afterwards
	KindReference Kind = "reference" // the built-in reference stack, optionally with defects
	KindCompose   Kind = "compose"   // a docker-compose project resilcheck brings up and tears down
)

// Version is the only spec version this package reads.
const Version = 1

// Target is a decoded target spec. Zero values mean the documented defaults;
// Parse and Load return it validated with Defaults applied. A Target is not
// modified by the package after it is returned and may be shared read-only.
type Target struct {
	Version      int          `yaml:"version"`      // spec format; 0 means 1, anything else but 1 is rejected
	Name         string       `yaml:"name"`         // shown in reports; empty = the spec file's base name
	Kind         Kind         `yaml:"kind"`         // empty = inferred: process or reference if that section is present, else running
	Service      Service      `yaml:"service"`      // where the service listens and how its health is read
	Process      Process      `yaml:"process"`      // kind process only
	Reference    Reference    `yaml:"reference"`    // kind reference only
	Compose      Compose      `yaml:"compose"`      // kind compose only
	Client       Client       `yaml:"client"`       // kind client only
	Operations   []Operation  `yaml:"operations"`   // at least one, except kind reference (defaults to the reference's)
	Dependencies []Dependency `yaml:"dependencies"` // the calls the service makes that the dependency proxy intercepts
	// Tiers is the chain of processes a request crosses, in order, when the
	// target is more than one (a gateway in front of a service): the first
	// answers at service.url, and resilcheck puts a hop proxy before each of
	// the others. Empty = one tier.
	Tiers       []Tier      `yaml:"tiers"`
	Effects     Effects     `yaml:"effects"`     // how side effects are counted; at least one way
	Tenancy     Tenancy     `yaml:"tenancy"`     // what scopes keys and quotas
	Conventions Conventions `yaml:"conventions"` // protocol dialects the service speaks
	Policy      Policy      `yaml:"policy"`      // what the service declares about its retries, deadlines and limits
	Gate        Gate        `yaml:"gate"`        // which failed checks fail the run, and waivers
	Webhooks    Webhooks    `yaml:"webhooks"`    // the webhooks the service receives; zero = none
	// WebhookSender is the webhooks the service sends; zero = none.
	WebhookSender WebhookSender `yaml:"webhook_sender"`
	// QueueConsumer is the queue the service consumes from a broker
	// resilcheck starts; zero = none.
	QueueConsumer QueueConsumer `yaml:"queue_consumer"`
	// Outbox is the events the service publishes to a broker resilcheck
	// starts, one per effect; zero = none.
	Outbox Outbox `yaml:"outbox"`
	// Concurrency is how many copies of the target resilcheck may start to
	// run checks side by side, each behind proxies of its own (kinds process
	// and reference); 0 or 1 = one copy, one check at a time, except that a
	// kind's defaults may set it (kind reference starts 12 copies when each
	// can have a store of its own).
	Concurrency int `yaml:"concurrency"`

	// Dir is the directory relative paths in the spec resolve against: the
	// spec file's directory (set by Parse and Load; empty = the working directory).
	Dir string `yaml:"-"`

	src *positions // where each field was written, for error positions; nil when built in Go
}

// Service says where the target listens and how resilcheck knows it is up.
type Service struct {
	// URL is the base URL requests go to. Kind process may use {{.Port}} and
	// {{.Ports.NAME}}; empty = http://127.0.0.1:{{.Port}} for kind process
	// (required for running).
	URL string `yaml:"url"`
	// Health is a path under URL, or an absolute URL, whose GET must answer 2xx
	// before certification starts; empty = /healthz. A path under URL is read
	// over Protocol, an absolute URL (a port of its own) over HTTP/1.1.
	// GRPCHealthPath is called by the gRPC Health Checking Protocol instead,
	// over HTTP/2, and SERVING is healthy.
	Health string `yaml:"health"`
	// StartupTimeout bounds the wait for health; 0 = 30s for kind process and
	// reference, 5s for kind running (it is already up, only blips are waited out).
	StartupTimeout time.Duration `yaml:"startup_timeout"`
	// Front says what answers at URL: FrontDirect (the service's own code)
	// or FrontProxy (a gateway or reverse proxy in front of it); empty =
	// not declared, judged as possibly a proxy.
	Front Front `yaml:"front"`
	// CA is a PEM file of the CAs that sign the certificate of a service
	// whose URL is https, relative to the spec file; empty = the system
	// roots. The front proxy verifies the service with it.
	CA string `yaml:"ca"`
	// Insecure makes the front proxy accept any certificate from an https
	// service; false (the default) verifies it. Set it only for a
	// self-signed certificate you have no CA file for.
	Insecure bool `yaml:"insecure"`
	// Protocol is what the front proxy speaks to the service: empty or
	// ProtocolHTTP1 (the default), ProtocolH2C for an http URL or
	// ProtocolH2 for an https one (HTTP/2 only).
	Protocol Protocol `yaml:"protocol"`
}

// Front names what answers at the service's URL.
type Front string

// The fronts. RFC 9110 §9.2.2 forbids a proxy to retry a non-idempotent
// request on its own, so HS-14 applies unless the front is declared direct.
const (
	FrontDirect Front = "direct" // the service's own code; no tier in front to re-send a POST
	FrontProxy  Front = "proxy"  // a gateway, load balancer or reverse proxy in front of the service
)

// GRPCHealthPath is the Check method of the gRPC Health Checking Protocol
// (grpc/grpc doc/health-checking.md, grpc.health.v1): a service.health
// ending in it is called, for the whole server, not fetched.
const GRPCHealthPath = "/grpc.health.v1.Health/Check"

// IsGRPCHealth says health (a path, or a URL's path) names the gRPC
// health method, under a prefix or not, so it is called, not fetched.
func IsGRPCHealth(path string) bool { return strings.HasSuffix(path, GRPCHealthPath) }

// Protocol names the HTTP version a proxy speaks to its upstream.
type Protocol string

// The protocols, by their ALPN identifiers (RFC 9113 §3.1).
const (
	ProtocolHTTP1 Protocol = "http/1.1" // the default
	ProtocolH2C   Protocol = "h2c"      // HTTP/2 in the clear, with prior knowledge
	ProtocolH2    Protocol = "h2"       // HTTP/2 over TLS
)

// HTTP2 reports whether the upstream speaks HTTP/2 only.
func (p Protocol) HTTP2() bool { return p == ProtocolH2C || p == ProtocolH2 }

// Process describes the command a kind-process target is started with. Its
// strings are text/template templates over ProcessValues.
type Process struct {
	Command   []string          `yaml:"command"`    // argv; required; argv[0] relative to Dir if it contains a slash
	Env       map[string]string `yaml:"env"`        // added to resilcheck's own environment (overriding it)
	Dir       string            `yaml:"dir"`        // working directory, relative to the spec file; empty = the spec file's directory
	StopGrace time.Duration     `yaml:"stop_grace"` // SIGTERM-to-SIGKILL grace on stop; 0 = 5s
}

// Reference configures the built-in reference stack (kind reference).
type Reference struct {
	Defects []string `yaml:"defects"` // defect names (see resilcheck reference defects); empty = a correct stack
	// Store is "sqlite" (embedded, in a temp dir), "sqlite:PATH" or a
	// postgres:// or postgresql:// URL; empty = "sqlite".
	Store string `yaml:"store"`
	// Face is what the harness certifies: "http" (the gateway's POST
	// /v1/payments, two tiers) or "grpc" (the service's gRPC
	// CreatePayment over h2c, one tier); empty = "http".
	Face string `yaml:"face"`
}

// Compose describes a kind-compose target: a docker-compose project that
// resilcheck brings up, certifies one service of at service.url, and tears
// down with its volumes. Env values are text/template templates over
// ComposeValues.
type Compose struct {
	Files   []string `yaml:"files"`   // compose files, relative to the spec file; required
	Service string   `yaml:"service"` // the compose service certified (service.url reaches it); required
	// Project is the compose project name; empty = resilcheck- and a random
	// suffix, so two runs never share containers.
	Project string `yaml:"project"`
	// Env holds the variables the compose files interpolate, such as the URL
	// a service calls its dependency at: "{{.Dependencies.NAME}}".
	Env map[string]string `yaml:"env"`
	// DependencyHost is the host in .Dependencies URLs: how containers reach
	// resilcheck's dependency proxies. Empty = host.docker.internal (map it
	// with extra_hosts: ["host.docker.internal:host-gateway"]); 127.0.0.1 for
	// services in network_mode: host.
	DependencyHost string `yaml:"dependency_host"`
}

// Operation is one effectful request the harness exercises. Path, Body,
// AltBody and Headers are text/template templates over RequestValues.
type Operation struct {
	Name        string            `yaml:"name"`         // required, unique; names the operation in reports
	Method      string            `yaml:"method"`       // empty = POST
	Path        string            `yaml:"path"`         // required, starts with /; empty = grpc.method for a gRPC call
	Body        string            `yaml:"body"`         // request body; empty = none
	AltBody     string            `yaml:"alt_body"`     // a different payload for mismatch checks; empty = Body rendered with another .Amount
	KeyHeader   string            `yaml:"key_header"`   // empty = Idempotency-Key
	ContentType string            `yaml:"content_type"` // empty = application/json when Body is set
	Headers     map[string]string `yaml:"headers"`      // extra request headers (e.g. Authorization)
	Success     []int             `yaml:"success"`      // statuses meaning the operation took effect; empty = any 2xx
	// GRPC makes the operation a unary gRPC call whose body is the request
	// message as JSON; its grpc-status is judged as the HTTP status
	// google.rpc.Code maps it to. Zero = plain HTTP.
	GRPC GRPC `yaml:"grpc"`
}

// Tier is one process of a multi-tier target. Every tier but the first is
// reached through resilcheck's hop proxy: the tier above calls
// {{.Tiers.NAME}}, and the proxy forwards to URL, journaling each exchange
// as the hop's own side and injecting faults there.
type Tier struct {
	// Name is required and unique among the tiers: letters, digits, - and
	// _. Reports name the tier whose behaviour broke a rule by it.
	Name string `yaml:"name"`
	// URL is where the tier listens. The first tier's is service.url and
	// is left empty; every other one's is required, except where the kind
	// starts its tiers itself (kind reference). Kind process may write a
	// named free port in it, {{.Ports.NAME}}, for the command to listen on.
	URL string `yaml:"url"`
	// Listen is host:port for the hop proxy before the tier. Required for
	// kind running (the tier above already calls a fixed address); empty =
	// a free loopback port (every interface for kind compose, whose
	// containers reach the host on its bridge). The first tier has none.
	Listen string `yaml:"listen"`
	// Protocol is what the hop proxy speaks to URL, as a dependency's
	// protocol: empty or ProtocolHTTP1 (the default), ProtocolH2C for an
	// http URL or ProtocolH2 for an https one (a gRPC service behind a
	// gateway). The hop takes HTTP/1.1 and h2c from the tier above either
	// way. The first tier's is service.protocol.
	Protocol Protocol `yaml:"protocol"`
}

// Dependency is a service the target calls, intercepted by resilcheck's
// dependency proxy.
type Dependency struct {
	// Name is required and unique: letters, digits, - and _. Templates use it as
	// {{.Dependencies.NAME}}, or {{index .Dependencies "NAME"}} when it has a -.
	Name string `yaml:"name"`
	// Listen is host:port for the dependency proxy. Required for kind running
	// (the service already calls a fixed address); empty = a free loopback port.
	Listen string `yaml:"listen"`
	// Upstream is the real dependency's base URL; empty = the proxy's stand-in
	// answers itself. Kind process may write a named free port in it,
	// {{.Ports.NAME}}, for a dependency its command starts on the same port.
	Upstream string `yaml:"upstream"`
	// TLS makes the dependency proxy serve https with a certificate from
	// the run's own authority, handed to the target (see ProcessValues.CAFile).
	// false (the default) serves plain http, even for an https upstream:
	// the URL the target is handed keeps the scheme it always had.
	TLS bool `yaml:"tls"`
	// UpstreamCA is a PEM file of the CAs that sign an https upstream's
	// certificate, relative to the spec file; empty = the system roots.
	UpstreamCA string `yaml:"upstream_ca"`
	// Protocol is what the dependency proxy speaks to Upstream: empty or
	// ProtocolHTTP1 (the default), ProtocolH2C for an http upstream or
	// ProtocolH2 for an https one (HTTP/2 only). The target may speak either
	// to the proxy, whatever this says.
	Protocol Protocol `yaml:"protocol"`
	// Method is the effectful call's method; empty = POST.
	Method string `yaml:"method"`
	// Path is the effectful call's path, a glob as in fault rules (e.g.
	// /entries/*); empty = any call with Method counts as the call.
	Path string `yaml:"path"`
	// GRPC makes the dependency a gRPC service: its effectful call is the
	// unary method GRPC.Method (a POST to that path, so Method and Path
	// stay empty), an upstream is spoken to over HTTP/2, and the stand-in
	// answers as a gRPC server. The zero value is an HTTP dependency.
	GRPC GRPCDependency `yaml:"grpc"`
	// StandIn is the stand-in's answer when there is no Upstream; the zero
	// value answers 200 with an empty JSON object, or for a gRPC
	// dependency the empty response message with grpc-status 0.
	StandIn StandIn `yaml:"stand_in"`
}

// StandIn is a scripted dependency answer. Body is a text/template when it
// contains "{{", with .Method, .Path, .Body, .N (the request's ordinal) and
// .Header "Name". A gRPC dependency's stand-in answers HTTP 200 with Body
// as its response message in JSON, and Headers as leading metadata; there
// .Body is the request as it came, the framed binary protobuf, not JSON,
// and .Header reads the request's metadata.
type StandIn struct {
	Status  int               `yaml:"status"`  // 0 = 200; a gRPC stand-in's is 200
	Headers map[string]string `yaml:"headers"` // response headers
	Body    string            `yaml:"body"`    // empty = {}, for gRPC the empty message
}

// Effects says how side effects are observed; at least one of Ledger and
// Probe is set. With both, the ledger's count is judged and a probe that
// disagrees with it fails the check: one of the two is wrong.
type Effects struct {
	Ledger Ledger `yaml:"ledger"` // count distinct effects at a dependency
	Probe  Probe  `yaml:"probe"`  // read a count back from the service
}

// Ledger counts distinct effects that reached a dependency, keyed by the
// idempotency key the service forwards. The zero value is disabled.
type Ledger struct {
	Dependency string `yaml:"dependency"` // a declared dependency's name; empty = no ledger
	KeyHeader  string `yaml:"key_header"` // the header the service forwards; empty = Idempotency-Key
}

// Probe reads the number of effects for one key back from the service. The
// zero value is disabled. URL and Headers are templates over RequestValues.
type Probe struct {
	Method  string            `yaml:"method"`  // empty = GET
	URL     string            `yaml:"url"`     // absolute, or a path under service.url; empty = no probe
	Headers map[string]string `yaml:"headers"` // extra request headers
	// Count locates the count in the JSON answer (see CountPath); empty = "$"
	// (the body is the number, or an array whose length is the count).
	Count string `yaml:"count"`
}

// Tenancy says what scopes idempotency keys and quotas.
type Tenancy struct {
	// Header carries the tenant on each request; empty = X-Tenant-ID. Writing
	// header: "" explicitly in YAML sets Disabled.
	Header   string `yaml:"header"`
	Disabled bool   `yaml:"disabled"` // true skips the two-tenant checks
	// Tenants are the tenants the service knows (e.g. each bound to a
	// credential: headers: {Authorization: "Bearer {{.Tenant}}"}); at least
	// two when given. Empty = resilcheck makes up a fresh tenant per case.
	Tenants []string `yaml:"tenants"`
	// Headers are sent with every request made as a tenant, probes and load
	// included: text/template templates over RequestValues, e.g.
	// {Authorization: "Bearer {{.Tenant}}"} where the service takes the
	// tenant from a credential. An operation's own headers override them.
	Headers map[string]string `yaml:"headers"`
}

// Conventions are the protocol dialects the service speaks.
type Conventions struct {
	Profile        Profile       `yaml:"profile"`         // empty = ietf
	KeyFormat      KeyFormat     `yaml:"key_format"`      // empty = token
	DeadlineHeader string        `yaml:"deadline_header"` // empty = X-Request-Timeout-Ms
	KeyTTL         time.Duration `yaml:"key_ttl"`         // how long keys are kept; 0 = 24h
	// MaxBudget is how long the service takes at most to answer a request
	// that carries no deadline (its own default timeout); 0 = 10s.
	MaxBudget time.Duration `yaml:"max_budget"`
}

// Profile names the status codes expected for idempotency errors.
type Profile string

// The profiles.
const (
	ProfileIETF   Profile = "ietf"   // 400 missing/malformed key, 409 in flight, 422 payload mismatch
	ProfileStripe Profile = "stripe" // 400 idempotency_error (mismatch too), 409 in flight
)

// KeyFormat says how an idempotency key is written in its header.
type KeyFormat string

// The key formats.
const (
	KeyToken    KeyFormat = "token"     // bare value, as Stripe and most services accept
	KeySFString KeyFormat = "sf-string" // RFC 8941 quoted string, as the IETF draft specifies
)

// The deadline headers the harness can speak (case-insensitive in specs).
const (
	DeadlineRequestTimeoutMs = "X-Request-Timeout-Ms"           // relative milliseconds (the reference's)
	DeadlineGRPCTimeout      = "grpc-timeout"                   // gRPC's TimeoutValue TimeoutUnit
	DeadlineEnvoyUpstream    = "x-envoy-upstream-rq-timeout-ms" // Envoy, relative milliseconds
	DeadlineEnvoyExpected    = "x-envoy-expected-rq-timeout-ms" // Envoy, relative milliseconds
)
