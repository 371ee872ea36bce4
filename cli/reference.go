package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/resilcheck/resilcheck/internal/reference"
	"github.com/resilcheck/resilcheck/internal/reference/defect"
	"github.com/resilcheck/resilcheck/internal/reference/gateway"
	"github.com/resilcheck/resilcheck/internal/reference/payments"
	"github.com/resilcheck/resilcheck/internal/reference/processor"
	"github.com/resilcheck/resilcheck/internal/reference/store"
	"github.com/resilcheck/resilcheck/internal/reference/target"
)

type referenceOpts struct {
	addr      string
	store     string
	defects   []string
	seed      uint64
	rateLimit string
}

func newReferenceCmd() *cobra.Command {
	o := &referenceOpts{}
	cmd := &cobra.Command{
		Use:   "reference",
		Short: "Run the reference payments stack (gateway → service → processor)",
		Long: `Run the reference payments stack in one process, each component on its own
loopback listener, and print one line per component as "NAME URL".
--defect switches on one way real services break a contract (repeatable);
"resilcheck reference defects" lists them. Stops cleanly on SIGINT/SIGTERM.

Each component can also run alone, to split the stack across processes:
  resilcheck reference processor --addr 127.0.0.1:9090
  resilcheck reference service --addr 127.0.0.1:9080 --processor-url http://127.0.0.1:9090
  resilcheck reference gateway --addr 127.0.0.1:8080 --service-url http://127.0.0.1:9080`,
		Example: "  resilcheck reference --addr 127.0.0.1:8080\n  resilcheck reference --defect racy-idempotency",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			set, rate, burst, err := o.parse(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			opts := []reference.Option{reference.WithGatewayAddr(o.addr), reference.WithStore(o.store),
				reference.WithDefects(set), reference.WithRateLimit(rate, burst),
				reference.WithLogger(o.logger(cmd))}
			if cmd.Flags().Changed("seed") {
				opts = append(opts, reference.WithSeed(o.seed))
			}
			st, err := reference.Start(cmd.Context(), opts...)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "gateway %s\nservice %s\nprocessor %s\n", st.GatewayURL, st.ServiceURL, st.ProcessorURL)
			if len(set) > 0 {
				fmt.Fprintf(out, "defects %s\n", strings.Join(set.Names(), ","))
			}
			<-cmd.Context().Done()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			return st.Close(ctx)
		},
	}
	o.flags(cmd, "127.0.0.1:8080", true)
	cmd.AddCommand(newReferenceDefectsCmd(), newReferenceProcessorCmd(), newReferenceServiceCmd(), newReferenceGatewayCmd(), newReferenceClientCmd())
	return cmd
}

func (o *referenceOpts) flags(cmd *cobra.Command, addr string, all bool) {
	f := cmd.Flags()
	f.StringVar(&o.addr, "addr", addr, "listen address (loopback by default)")
	f.StringArrayVar(&o.defects, "defect", nil, "switch a defect on (repeatable; see 'resilcheck reference defects'); default $"+defectEnv+", comma-separated")
	f.Uint64Var(&o.seed, "seed", 0, "seed of every random choice (ids, jitter); default random. Never reuse a seed on a store that outlives the process")
	_ = cmd.RegisterFlagCompletionFunc("defect", completeDefects)
	if all {
		f.StringVar(&o.store, "store", "", "payments store: sqlite:PATH or postgres://… (default: SQLite in a temporary directory)")
		f.StringVar(&o.rateLimit, "rate-limit", "50", "gateway per-tenant limit: RATE (per second, burst = RATE) or RATE:BURST")
	}
}

// defectEnv switches defects on when no --defect is given (comma-separated):
// how a compose file or container platform configures a component.
const defectEnv = "RESILCHECK_DEFECT"

// parse reads the flags. Defects taken from $RESILCHECK_DEFECT are named on
// stderr, since a variable left set would otherwise make a component
// defective unseen, and an unknown name there is blamed on the variable.
func (o *referenceOpts) parse(stderr io.Writer) (defect.Set, float64, int, error) {
	var set defect.Set
	var err error
	if env := os.Getenv(defectEnv); len(o.defects) == 0 && env != "" {
		if set, err = defect.Parse(strings.Split(env, ",")...); err != nil {
			return nil, 0, 0, fmt.Errorf("$%s: %w", defectEnv, err)
		}
		if len(set) > 0 {
			fmt.Fprintf(stderr, "resilcheck: defects from $%s: %s\n", defectEnv, strings.Join(set.Names(), ", "))
		}
	} else if set, err = defect.Parse(o.defects...); err != nil {
		return nil, 0, 0, err
	}
	rate, burst, err := parseRateLimit(o.rateLimit)
	if err != nil {
		return nil, 0, 0, err
	}
	return set, rate, burst, nil
}

// parseRateLimit reads "RATE" or "RATE:BURST" (requests per second).
func parseRateLimit(s string) (float64, int, error) {
	if s == "" {
		return 50, 50, nil
	}
	r, b, hasBurst := strings.Cut(s, ":")
	rate, err := strconv.ParseFloat(strings.TrimSuffix(r, "/s"), 64)
	if err != nil || rate <= 0 {
		return 0, 0, usagef("--rate-limit %q: want RATE or RATE:BURST, RATE > 0 requests per second", s)
	}
	burst := max(int(rate), 1)
	if hasBurst {
		if burst, err = strconv.Atoi(b); err != nil || float64(burst) < rate {
			return 0, 0, usagef("--rate-limit %q: BURST must be an integer no smaller than RATE", s)
		}
	}
	if float64(burst) < rate {
		burst = int(rate + 0.999)
	}
	return rate, burst, nil
}

// logger logs requests to stderr with --verbose.
func (o *referenceOpts) logger(cmd *cobra.Command) *slog.Logger {
	if !verbose(cmd) {
		return nil
	}
	return slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))
}

func newReferenceDefectsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "defects",
		Short: "List the defects the reference stack and its SDK can switch on, and the checks that catch each (the defect matrix)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "DEFECT\tCOMPONENT\tCAUGHT BY\tWHAT IT BREAKS")
			matrix := target.Matrix()
			for d, e := range target.ClientMatrix() {
				matrix[d] = e
			}
			for _, d := range append(defect.All(), defect.Client()...) {
				e := matrix[d.Name]
				caught := strings.Join(e.Must, " ")
				if len(e.May) > 0 {
					caught += " (" + strings.Join(e.May, " ") + ")"
				}
				if caught == "" {
					caught = "-"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", d.Name, d.Component, caught, d.Breaks)
			}
			fmt.Fprintln(w, "\nChecks in parentheses may also fail: properties explore at random and may reach the defect.")
			fmt.Fprintln(w, "Component client: the reference SDK's defects (internal/reference/client, client.WithDefects), caught by the client suite.")
			return w.Flush()
		},
	}
}

// serveUntilDone serves h on addr, prints "name URL", and shuts down when
// ctx ends. With h2c it speaks HTTP/2 with prior knowledge besides HTTP/1.1,
// as the service must for its gRPC face; the gateway and the processor
// speak HTTP/1.1 alone, as they do in the stack.
func serveUntilDone(ctx context.Context, out io.Writer, name, addr string, h http.Handler, h2c bool) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", addr, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if h2c {
		srv.Protocols = new(http.Protocols)
		srv.Protocols.SetHTTP1(true)
		srv.Protocols.SetUnencryptedHTTP2(true)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	fmt.Fprintf(out, "%s http://%s\n", name, l.Addr())
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(sctx)
}

func newReferenceProcessorCmd() *cobra.Command {
	o := &referenceOpts{}
	cmd := &cobra.Command{
		Use:   "processor",
		Short: "Run the processor alone (POST /charges, GET /ledger)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := processor.New(processor.WithSeed(o.seed), processor.WithLogger(o.logger(cmd)))
			if err != nil {
				return err
			}
			return serveUntilDone(cmd.Context(), cmd.OutOrStdout(), "processor", o.addr, p, false)
		},
	}
	o.flags(cmd, "127.0.0.1:9090", false)
	return cmd
}

func newReferenceServiceCmd() *cobra.Command {
	o := &referenceOpts{}
	var processorURL string
	cmd := &cobra.Command{
		Use:   "service",
		Short: "Run the payments service alone (its HTTP API, and its gRPC face over h2c on the same port)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			set, _, _, err := o.parse(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if processorURL == "" {
				return usagef("--processor-url is required")
			}
			if o.store == "" {
				return usagef("--store is required when the service runs alone (e.g. sqlite:payments.db)")
			}
			db, err := store.Open(cmd.Context(), o.store)
			if err != nil {
				return err
			}
			defer db.Close()
			opts := []payments.Option{payments.WithStore(db), payments.WithProcessorURL(processorURL),
				payments.WithDefects(set), payments.WithLogger(o.logger(cmd))}
			if cmd.Flags().Changed("seed") {
				// Payment ids derive from the seed: a restart with the same seed
				// on the same store would reuse them, so seed only on request.
				opts = append(opts, payments.WithSeed(o.seed))
			}
			svc, err := payments.New(opts...)
			if err != nil {
				return usageError{err}
			}
			defer svc.Close()
			return serveUntilDone(cmd.Context(), cmd.OutOrStdout(), "service", o.addr, svc, true)
		},
	}
	o.flags(cmd, "127.0.0.1:9080", true)
	cmd.Flags().StringVar(&processorURL, "processor-url", "", "base URL of the processor (or of resilcheck's dependency proxy in front of it)")
	return cmd
}

func newReferenceGatewayCmd() *cobra.Command {
	o := &referenceOpts{}
	var serviceURL string
	cmd := &cobra.Command{
		Use:   "gateway",
		Short: "Run the gateway alone",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			set, rate, burst, err := o.parse(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if serviceURL == "" {
				return usagef("--service-url is required")
			}
			gw, err := gateway.New(gateway.WithServiceURL(serviceURL), gateway.WithRateLimit(rate, burst),
				gateway.WithSeed(o.seed), gateway.WithDefects(set), gateway.WithLogger(o.logger(cmd)))
			if err != nil {
				return usageError{err}
			}
			defer gw.Close()
			return serveUntilDone(cmd.Context(), cmd.OutOrStdout(), "gateway", o.addr, gw, false)
		},
	}
	o.flags(cmd, "127.0.0.1:8080", true)
	cmd.Flags().StringVar(&serviceURL, "service-url", "", "base URL of the payments service")
	return cmd
}
