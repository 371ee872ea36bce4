package cli

import (
	"bufio"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/resilcheck/resilcheck/load"
)

// loadOpts are the flags of `load`.
type loadOpts struct {
	url, method, body, pace, output, encoding, keyHeader string
	headers, tenants, thresholds                         []string
	rate, slope, amp, tolerance                          float64
	period, duration, timeout                            time.Duration
	seed, maxWorkers                                     uint64
}

func newLoadCmd() *cobra.Command {
	var o loadOpts
	cmd := &cobra.Command{
		Use:   "load --url URL",
		Short: "Send paced HTTP load (vegeta) with fresh idempotency keys and report the achieved rate",
		Long: `load drives one URL at a constant, linear or sine rate with vegeta, gives every
request a fresh Idempotency-Key drawn from --seed (and --tenant values in turn),
and prints vegeta's text report with the requested and achieved rates.

A run that could not send the rate asked for (beyond --tolerance) exits 3
(inconclusive): its numbers describe a lower rate. A run that misses a
--threshold exits 1. Thresholds are k6-style METRIC OP VALUE: success (the
share of 2xx/3xx answers, as a ratio or a percentage) or a latency (min, mean,
max, pNN) against a duration, OP one of < <= > >=. Unless a threshold is set on
success, success>=0.99 applies; --threshold 'success>=0' turns it off. --body is a Go template
with .Seq, .Key and .Tenant; --body @FILE reads it from a file. --output
writes every result in vegeta's format (--encoding gob, json or csv), for
"resilcheck report merge" or vegeta's own tools.`,
		Example: `  # against "resilcheck reference" (its gateway allows 50 requests/s per tenant)
  resilcheck load --url http://127.0.0.1:8080/v1/payments --method POST \
      --body '{"amount":100,"currency":"EUR"}' --header Content-Type:application/json \
      --rate 40 --duration 10s --threshold 'p99<1s' --output node-1.gob
  resilcheck load --url http://127.0.0.1:8080/v1/payments --pace linear --rate 10 --slope 5 --duration 20s
  resilcheck load --url http://127.0.0.1:8080/v1/payments --pace sine --rate 40 --amp 20 --period 10s --duration 30s`,
		Args:        cobra.NoArgs,
		RunE:        func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
		Annotations: map[string]string{onStop: "printing the results so far"},
	}
	f := cmd.Flags()
	f.StringVar(&o.url, "url", "", "absolute http(s) URL to send every request to (required)")
	f.StringVar(&o.method, "method", http.MethodGet, "request method")
	f.StringVar(&o.body, "body", "", "request body, a template with .Seq .Key .Tenant; @FILE reads a file")
	f.StringArrayVar(&o.headers, "header", nil, "extra header as Name:value (repeatable)")
	f.StringVar(&o.keyHeader, "key-header", "Idempotency-Key", `header carrying a fresh key per request ("" sends none)`)
	f.StringArrayVar(&o.tenants, "tenant", nil, "tenant sent in X-Tenant-ID, in turn (repeatable)")
	f.Float64Var(&o.rate, "rate", 10, "requests per second: the constant rate, the linear start, or the sine mean")
	f.StringVar(&o.pace, "pace", "constant", "pacing: constant, linear or sine")
	f.Float64Var(&o.slope, "slope", 0, "linear pacing: added requests per second, per second")
	f.Float64Var(&o.amp, "amp", 0, "sine pacing: amplitude in requests per second (below --rate)")
	f.DurationVar(&o.period, "period", 0, "sine pacing: period of the wave")
	f.DurationVar(&o.duration, "duration", 10*time.Second, "how long to send")
	f.DurationVar(&o.timeout, "timeout", load.DefaultTimeout, "limit of each request")
	f.Uint64Var(&o.maxWorkers, "max-workers", 0, "cap on concurrent requests (0: as many as the rate needs)")
	f.Float64Var(&o.tolerance, "tolerance", load.DefaultTolerance, "share of scheduled requests that may be missing before the run is a shortfall")
	f.StringArrayVar(&o.thresholds, "threshold", nil, "pass/fail condition such as 'success>=0.99' or 'p99<500ms' (repeatable; default "+load.DefaultThreshold+")")
	f.StringVar(&o.output, "output", "", "write every result to this file")
	f.StringVar(&o.encoding, "encoding", "gob", "encoding of --output: gob, json or csv")
	f.Uint64Var(&o.seed, "seed", 0, "seed of the idempotency keys (0: draw one; printed)")
	_ = cmd.RegisterFlagCompletionFunc("pace", cobra.FixedCompletions([]string{"constant", "linear", "sine"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("encoding", cobra.FixedCompletions(load.Encodings, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.MarkFlagFilename("output")
	return cmd
}

// spec turns the flags into a load.Spec; every problem is a usage error.
func (o *loadOpts) spec() (load.Spec, error) {
	if o.url == "" {
		return load.Spec{}, usagef("load: --url is required")
	}
	if !slices.Contains(load.Encodings, o.encoding) {
		return load.Spec{}, usagef("load: --encoding %q: want gob, json or csv", o.encoding)
	}
	if o.tolerance <= 0 || o.tolerance >= 1 {
		return load.Spec{}, usagef("load: --tolerance %v: want a share in (0, 1)", o.tolerance)
	}
	h := http.Header{}
	for _, kv := range o.headers {
		k, v, ok := strings.Cut(kv, ":")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return load.Spec{}, usagef("load: --header %q: want Name:value", kv)
		}
		h.Add(k, strings.TrimSpace(v))
	}
	body := []byte(o.body)
	if name, ok := strings.CutPrefix(o.body, "@"); ok {
		b, err := os.ReadFile(name)
		if err != nil {
			return load.Spec{}, usagef("load: --body: %w", err)
		}
		body = b
	}
	thresholds, err := load.ParseThresholds(o.thresholds)
	if err != nil {
		return load.Spec{}, usagef("load: --threshold: %w", err)
	}
	seed := o.seed
	if seed == 0 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		seed = binary.LittleEndian.Uint64(b[:]) | 1
	}
	return load.Spec{
		URL: o.url, Method: strings.ToUpper(o.method), Body: body, Header: h,
		KeyHeader: o.keyHeader, Tenants: o.tenants,
		Pacing:   load.Pacing{Kind: o.pace, Rate: o.rate, Slope: o.slope, Period: o.period, Amp: o.amp},
		Duration: o.duration, Timeout: o.timeout, MaxWorkers: o.maxWorkers, Seed: seed,
		Tolerance: o.tolerance, MaxBody: 0, Thresholds: thresholds,
	}, nil
}

func (o *loadOpts) run(cmd *cobra.Command) error {
	spec, err := o.spec()
	if err != nil {
		return err
	}
	if _, err := spec.Pacing.Pacer(); err != nil {
		return usagef("%w", err)
	}
	var sink func(*vegeta.Result) error
	var out *os.File
	var bw *bufio.Writer
	if o.output != "" {
		if out, err = os.Create(o.output); err != nil {
			return usagef("load: --output: %w", err)
		}
		defer out.Close()
		bw = bufio.NewWriter(out)
		enc, _ := load.NewEncoder(o.encoding, bw) // validated above
		sink = func(r *vegeta.Result) error { return enc.Encode(r) }
	}
	stdout := cmd.OutOrStdout()
	fmt.Fprintf(stdout, "load: %s %s, %s pacing at %.2f req/s for %s, seed %d\n",
		spec.Method, spec.URL, o.pace, o.rate, o.duration, spec.Seed)
	rep, runErr := load.Run(cmd.Context(), spec, sink)
	if errors.Is(runErr, load.ErrSpec) {
		return runErr
	}
	if bw != nil {
		if err := errors.Join(bw.Flush(), out.Close()); err != nil {
			return fmt.Errorf("load: --output: %w", err)
		}
	}
	if rep != nil {
		if err := rep.WriteText(stdout); err != nil {
			return err
		}
		if o.output != "" {
			fmt.Fprintf(stdout, "results: %s (%s, %d results)\n", o.output, o.encoding, rep.Sent)
		}
	}
	if te := (*load.ThresholdError)(nil); errors.As(runErr, &te) {
		// Exit 1 is a verdict, which run does not print: say which missed.
		fmt.Fprintln(cmd.ErrOrStderr(), "resilcheck:", te)
	}
	if load.IsShortfall(runErr) {
		return fmt.Errorf("%w: the numbers above describe a lower rate than asked for; lower --rate, raise --max-workers or use more machines", runErr)
	}
	return runErr
}
