package load

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Defaults of a Spec.
const (
	DefaultTimeout   = 10 * time.Second // per request, whole exchange
	DefaultTolerance = 0.05             // share of the scheduled requests that may be missing
	DefaultName      = "resilcheck"     // the attack name vegeta sends as X-Vegeta-Attack
	DefaultTenantKey = "X-Tenant-ID"    // the header Tenants are sent in
)

// ErrSpec reports an invalid Spec; errors from Run wrap it.
var ErrSpec = errors.New("load: invalid spec")

// Spec describes one attack. It is a plain value; the zero value of each
// field means the default its comment states.
type Spec struct {
	// URL is the absolute http(s) URL every request goes to (required).
	URL string
	// Method defaults to GET.
	Method string
	// Body is sent with every request. When it contains "{{" it is a
	// text/template rendered per request with .Seq (from 0), .Key (the fresh
	// idempotency key, "" without KeyHeader) and .Tenant.
	Body []byte
	// Header is copied into every request (a fresh map per request).
	Header http.Header
	// Build, when set, completes each request after Header, the key and the
	// tenant are set: it may change the header map it is given (the request's
	// own) and returns the body, which replaces Body. It is called from many
	// goroutines at once; an error ends the attack (vegeta stops on a
	// targeter error) and is the last result's Error.
	Build func(d BodyData, h http.Header) ([]byte, error)
	// KeyHeader, when set, carries a fresh key per request: a UUIDv4 drawn
	// from Seed, so a seed reproduces the keys.
	KeyHeader string
	// Tenants are sent round-robin in TenantHeader; empty sends none.
	Tenants []string
	// TenantHeader defaults to X-Tenant-ID.
	TenantHeader string
	// Pacing is the schedule; its zero value is invalid (a rate is required).
	Pacing Pacing
	// Duration of the attack (required, > 0); ctx may end it earlier.
	Duration time.Duration
	// MaxRequests, when > 0, ends the attack after that many requests.
	MaxRequests int
	// Timeout bounds each request; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxWorkers caps concurrent requests; 0 means unbounded (vegeta's open
	// model, which keeps the schedule against a slow target).
	MaxWorkers uint64
	// MaxBody is how many bytes of each response body results keep: 0 keeps
	// none, a negative value keeps all. BytesIn counts whole bodies whatever
	// it is.
	MaxBody int64
	// Thresholds are judged on the finished run (see Judge); nil judges
	// none, and ParseThresholds adds the default success threshold.
	Thresholds []Threshold
	// Seed seeds the key generator.
	Seed uint64
	// Tolerance is the share of the scheduled requests that may be missing
	// before the run is a shortfall; 0 means DefaultTolerance (5 %), and one
	// request is always allowed for the schedule's rounding.
	Tolerance float64
	// Name is the attack name; "" means DefaultName.
	Name string
}

// Pacing is a vegeta pacer described by value. Rates are requests per second.
type Pacing struct {
	// Kind is "constant" (the default), "linear" or "sine".
	Kind string
	// Rate is the constant rate, the linear start rate, or the sine mean.
	Rate float64
	// Slope is the linear pacer's increase, in requests per second per second.
	Slope float64
	// Period and Amp shape the sine pacer: Amp (req/s) must be below Rate.
	Period time.Duration
	Amp    float64
}

// Pacer returns the vegeta pacer, or an error wrapping ErrSpec.
func (p Pacing) Pacer() (vegeta.Pacer, error) {
	if !(p.Rate > 0) || math.IsInf(p.Rate, 0) {
		return nil, fmt.Errorf("%w: rate %v must be a positive number of requests per second", ErrSpec, p.Rate)
	}
	switch p.Kind {
	case "", "constant":
		return rate(p.Rate), nil
	case "linear":
		if math.IsNaN(p.Slope) || math.IsInf(p.Slope, 0) {
			return nil, fmt.Errorf("%w: linear slope %v", ErrSpec, p.Slope)
		}
		return vegeta.LinearPacer{StartAt: rate(p.Rate), Slope: p.Slope}, nil
	case "sine":
		if p.Period <= 0 || !(p.Amp > 0) || p.Amp >= p.Rate {
			return nil, fmt.Errorf("%w: sine needs a positive period and 0 < amp < rate (period %s, amp %v, rate %v)", ErrSpec, p.Period, p.Amp, p.Rate)
		}
		return vegeta.SinePacer{Period: p.Period, Mean: rate(p.Rate), Amp: rate(p.Amp), StartAt: vegeta.MeanUp}, nil
	}
	return nil, fmt.Errorf("%w: pacing %q (want constant, linear or sine)", ErrSpec, p.Kind)
}

// rate turns requests per second into vegeta's integer Freq/Per form
// without rounding the rate to whole requests.
func rate(perSecond float64) vegeta.Rate {
	return vegeta.Rate{Freq: 1, Per: time.Duration(float64(time.Second) / perSecond)}
}

// expectedHits integrates the pacer's rate over d: the requests it schedules.
func expectedHits(p vegeta.Pacer, d time.Duration) float64 {
	const steps = 1000
	dt := d / steps
	var sum float64
	for i := range steps {
		t := dt*time.Duration(i) + dt/2
		sum += max(p.Rate(t), 0) * dt.Seconds()
	}
	return sum
}

func (s Spec) validate() error {
	u, err := url.Parse(s.URL)
	switch {
	case s.URL == "":
		return fmt.Errorf("%w: a URL is required", ErrSpec)
	case err != nil:
		return fmt.Errorf("%w: URL: %w", ErrSpec, err)
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return fmt.Errorf("%w: URL %q must be absolute http or https", ErrSpec, s.URL)
	case s.Duration <= 0:
		return fmt.Errorf("%w: duration %s must be positive", ErrSpec, s.Duration)
	case s.Timeout < 0:
		return fmt.Errorf("%w: timeout %s must not be negative", ErrSpec, s.Timeout)
	case s.MaxRequests < 0:
		return fmt.Errorf("%w: max requests %d must not be negative", ErrSpec, s.MaxRequests)
	case s.Tolerance < 0 || s.Tolerance >= 1:
		return fmt.Errorf("%w: tolerance %v not in [0, 1)", ErrSpec, s.Tolerance)
	}
	return nil
}

func (s Spec) method() string {
	if s.Method == "" {
		return http.MethodGet
	}
	return s.Method
}

func (s Spec) timeout() time.Duration {
	if s.Timeout == 0 {
		return DefaultTimeout
	}
	return s.Timeout
}

func (s Spec) tolerance() float64 {
	if s.Tolerance == 0 {
		return DefaultTolerance
	}
	return s.Tolerance
}

func (s Spec) name() string {
	if s.Name == "" {
		return DefaultName
	}
	return s.Name
}

func (s Spec) tenantHeader() string {
	if s.TenantHeader == "" {
		return DefaultTenantKey
	}
	return s.TenantHeader
}
