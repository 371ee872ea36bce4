// Command conventions is a small payments-like service that speaks every
// convention resilcheck can be told about under a name other than its
// default: the key in X-Idem-Key as an RFC 9651 String, the tenant in
// X-Account bound to a bearer credential, the ledger key forwarded as
// X-Upstream-Key, deadlines in grpc-timeout, a read-back probe, a POST and a
// PUT operation, and the Stripe status profile. target.yaml declares all of
// it; -break (or $CONVENTIONS_BREAK) breaks one convention at a time.
//
//	usage: conventions -addr 127.0.0.1:8080 -ledger http://127.0.0.1:9091 -accounts acme,globex
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		log.Fatal(err)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("conventions", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "listen address")
	ledger := fs.String("ledger", "", "the ledger's base URL (required)")
	accounts := fs.String("accounts", "", "comma-separated accounts; each authenticates as Authorization: Bearer <account> (required)")
	keyTTL := fs.Duration("key-ttl", 10*time.Minute, "how long an idempotency key is kept")
	maxBudget := fs.Duration("max-budget", 3*time.Second, "the budget of a request that carries no grpc-timeout, and the cap of one that does")
	quota := fs.Int64("quota", 100, "requests per second per account on POST /v1/transfers and GET /v1/quota")
	brk := fs.String("break", os.Getenv("CONVENTIONS_BREAK"), "break one convention: "+strings.Join(breakNames(), ", "))
	if err := fs.Parse(args); err != nil {
		return err
	}
	b, err := parseBreak(*brk)
	if err != nil {
		return err
	}
	if *ledger == "" || *accounts == "" {
		return errors.New("conventions: -ledger and -accounts are required")
	}
	if *quota < 1 {
		return fmt.Errorf("conventions: -quota %d: want at least 1", *quota)
	}
	srv := newServer(config{
		ledgerURL: strings.TrimRight(*ledger, "/"),
		accounts:  strings.Split(*accounts, ","),
		keyTTL:    *keyTTL,
		maxBudget: *maxBudget,
		brk:       b,
		retry:     defaultRetry,
		quota:     *quota,
	})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("conventions: %w", err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		c, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = hs.Shutdown(c)
	}()
	log.Printf("conventions: listening on http://%s (break: %q)", ln.Addr(), b)
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("conventions: %w", err)
	}
	return nil
}
