package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/spf13/cobra"
)

type proxyOpts struct {
	listen, upstream, rules, admin, adminToken, side, journal string
	upstreamProto                                             string
	seed                                                      uint64
	journalCap                                                int
	log                                                       *slog.Logger // nil: silent
}

func newProxyCmd() *cobra.Command {
	var o proxyOpts
	cmd := &cobra.Command{
		Use:   "proxy",
		Short: "Run the fault-injecting HTTP proxy in front of a service, or as a stand-in",
		Long: `proxy forwards HTTP requests (HTTP/1.1 and h2c from clients) to one upstream and applies per-request faults
from rules: delay, latency, abort, drop-response, reset, blackhole, duplicate,
throttle, truncate, goaway, grpc-status, respond. Without --upstream it is a stand-in that answers itself.
Every exchange is journaled; decisions are reproducible from --seed.

  resilcheck proxy --listen 127.0.0.1:8080 --upstream http://127.0.0.1:9000 \
      --rules rules.yaml --admin 127.0.0.1:8474

The admin API (rules, reset, GET /journal as JSON lines, /metrics) binds to
loopback unless --admin-token (or RESILCHECK_ADMIN_TOKEN) is set.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.adminToken == "" {
				o.adminToken = os.Getenv("RESILCHECK_ADMIN_TOKEN")
			}
			if verbose(cmd) {
				o.log = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))
			}
			return runProxy(cmd.Context(), cmd.OutOrStdout(), o, cmd.Flags().Changed("seed"))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.listen, "listen", "127.0.0.1:8080", "address to accept client requests on")
	f.StringVar(&o.upstream, "upstream", "", "URL of the service to forward to; empty runs a stand-in")
	f.StringVar(&o.upstreamProto, "upstream-protocol", "http/1.1", "what to speak to --upstream: http/1.1, h2c (HTTP/2 in the clear) or h2 (HTTP/2 over TLS)")
	f.StringVar(&o.rules, "rules", "", "YAML rules file loaded at start-up")
	f.StringVar(&o.admin, "admin", "", "address of the admin API, e.g. 127.0.0.1:8474 (off when empty)")
	f.StringVar(&o.adminToken, "admin-token", "", "bearer token required by the admin API (needed off loopback)")
	f.Uint64Var(&o.seed, "seed", 0, "seed for every random decision (default: random, printed)")
	f.StringVar(&o.side, "side", "front", "side name recorded in the journal and metrics")
	f.StringVar(&o.journal, "journal", "", "write the journal as JSON lines to this file on exit")
	f.IntVar(&o.journalCap, "journal-capacity", faults.DefaultJournalCapacity, "journal entries kept in memory")
	_ = cmd.MarkFlagFilename("rules", "yaml", "yml")
	return cmd
}

func proxyOptions(o proxyOpts, seeded bool) ([]faults.Option, *faults.RulesFile, error) {
	opts := []faults.Option{
		faults.WithSide(o.side),
		faults.WithJournal(faults.NewJournal(faults.WithCapacity(o.journalCap))),
	}
	if seeded {
		opts = append(opts, faults.WithSeed(o.seed))
	}
	if o.log != nil {
		opts = append(opts, faults.WithLogger(o.log))
	}
	if o.upstream != "" {
		u, err := url.Parse(o.upstream)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, nil, usagef("--upstream %q: want an absolute http:// or https:// URL", o.upstream)
		}
		opts = append(opts, faults.WithUpstream(u))
		switch p := o.upstreamProto; {
		case p == "h2c" && u.Scheme == "http", p == "h2" && u.Scheme == "https":
			opts = append(opts, faults.WithUpstreamHTTP2())
		case p == "h2c" || p == "h2":
			return nil, nil, usagef("--upstream-protocol %s does not go with a %s:// upstream (h2c is for http, h2 for https)", p, u.Scheme)
		}
	}
	switch o.upstreamProto {
	case "", "http/1.1":
	case "h2c", "h2":
		if o.upstream == "" {
			return nil, nil, usagef("--upstream-protocol %s: a stand-in has no upstream to speak it to", o.upstreamProto)
		}
	default:
		return nil, nil, usagef("--upstream-protocol %q: want http/1.1, h2c or h2", o.upstreamProto)
	}
	rf := &faults.RulesFile{}
	if o.rules != "" {
		var err error
		if rf, err = faults.LoadRules(o.rules); err != nil {
			return nil, nil, usagef("%w", err)
		}
		opts = append(opts, faults.WithRules(rf.Rules...))
		if rf.StandIn != nil {
			opts = append(opts, faults.WithStandIn(*rf.StandIn))
		}
	}
	return opts, rf, nil
}

func runProxy(ctx context.Context, out io.Writer, o proxyOpts, seeded bool) error {
	opts, rf, err := proxyOptions(o, seeded)
	if err != nil {
		return err
	}
	p, err := faults.NewProxy(opts...)
	if err != nil {
		return usagef("%w", err)
	}
	var stopAdmin func()
	if o.admin != "" { // bind the admin API first: a refused address starts nothing
		if stopAdmin, err = serveAdmin(p, o, out); err != nil {
			return err
		}
		defer stopAdmin()
	}
	addr, err := p.Start(o.listen)
	if err != nil {
		return usagef("--listen: %w", err)
	}
	target := "stand-in (no upstream)"
	if u := p.Upstream(); u != nil {
		target = u.Redacted()
	}
	fmt.Fprintf(out, "resilcheck proxy: %s -> %s (seed %d, %d rules)\n", addr, target, p.Seed(), len(rf.Rules))
	<-ctx.Done()
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = p.Shutdown(shut)
	return writeJournal(p, o.journal)
}

func serveAdmin(p *faults.Proxy, o proxyOpts, out io.Writer) (func(), error) {
	l, err := faults.ListenAdmin(o.admin, o.adminToken)
	if err != nil {
		if errors.Is(err, faults.ErrAdminExposed) {
			return nil, usagef("--admin: %w; pass --admin-token or use 127.0.0.1", err)
		}
		return nil, usagef("--admin: %w", err)
	}
	srv := &http.Server{Handler: faults.NewAdmin(p, faults.WithToken(o.adminToken)), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	fmt.Fprintf(out, "resilcheck proxy: admin API on http://%s (GET /journal, /rules, /metrics)\n", l.Addr())
	return func() { _ = srv.Close() }, nil
}

func writeJournal(p *faults.Proxy, path string) error {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("proxy: journal: %w", err)
	}
	if err := p.Journal().WriteJSONLines(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
