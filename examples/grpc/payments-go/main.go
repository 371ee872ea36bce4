// Command payments-go is a gRPC payments service certified by resilcheck
// (examples/grpc): grpc-go v1.85.0 serving payments.v1.Payments over h2c,
// with a unary CreatePayment that dedupes by the idempotency-key metadata
// and charges through a ledger: HTTP, or with -ledger-protocol grpc a gRPC
// ledger.v1.Ledger called by grpc-go with a retry policy in its service
// config (examples/grpc/payments-go-grpcledger). -break selects a defect.
package main

import (
	"flag"
	"log"
	"net"
	"net/http"
	"strings"

	"google.golang.org/grpc"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	ledgerURL := flag.String("ledger", "http://127.0.0.1:9090", "the ledger's base URL; charges are POSTed to /entries, or called as ledger.v1.Ledger/CreateEntry")
	ledgerProto := flag.String("ledger-protocol", "http", "how the ledger is called: http (JSON POSTs) or grpc (grpc-go over h2c, or h2 over TLS for an https -ledger)")
	brk := flag.String("break", "", "a defect: no-dedupe (charges and answers anew on every call), no-forward-key (the ledger gets no key), "+
		"fresh-key (the ledger's key is each charge's new payment id), over-retry (the gRPC ledger's policy allows 5 attempts) "+
		"key-per-attempt (the gRPC ledger's key is minted for every attempt), own-retries (the gRPC ledger is retried blind to pushback), "+
		"retry-server-errors (the gRPC ledger's policy retries INTERNAL and UNKNOWN too) or retry-every-code (it retries every error code)")
	flag.Parse()
	grpcOnly := *brk == breakOverRetry || *brk == breakAttemptKey || *brk == breakOwnRetries || *brk == breakServerErrors || *brk == breakEveryCode
	switch {
	case grpcOnly && *ledgerProto != "grpc":
		log.Fatalf("-break %s needs -ledger-protocol grpc", *brk)
	case grpcOnly, *brk == "", *brk == breakNoDedupe, *brk == breakNoForwardKey, *brk == breakFreshKey:
	default:
		log.Fatalf("unknown -break %q", *brk)
	}
	var l ledger = httpLedger{base: strings.TrimRight(*ledgerURL, "/")}
	switch *ledgerProto {
	case "http":
	case "grpc":
		cfg := grpcLedgerConfig{MaxAttempts: 3, KeyPerAttempt: *brk == breakAttemptKey, OwnRetries: *brk == breakOwnRetries}
		switch *brk {
		case breakOverRetry:
			cfg.MaxAttempts = 5
		case breakServerErrors:
			cfg.RetryableCodes = []string{"UNAVAILABLE", "INTERNAL", "UNKNOWN"}
		case breakEveryCode:
			cfg.RetryableCodes = everyErrorCode
		}
		gl, err := newGRPCLedger(*ledgerURL, cfg)
		if err != nil {
			log.Fatal(err)
		}
		l = gl
	default:
		log.Fatalf("unknown -ledger-protocol %q: want http or grpc", *ledgerProto)
	}
	svc := &payments{ledger: l, brk: *brk, keys: map[string]*entry{}}
	gs := grpc.NewServer(grpc.ForceServerCodec(wireCodec{}))
	gs.RegisterService(&paymentsDesc, svc)

	// One port for gRPC and the health route: grpc-go's ServeHTTP under an
	// http.Server that speaks h2c (gRPC) and HTTP/1.1 (a plain GET
	// /healthz). grpc-go's own Serve would need a second port for health.
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok\n")) })
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 && strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc") {
			gs.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
	srv := &http.Server{Handler: handler, Protocols: new(http.Protocols)}
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("payments-go listening on %s (h2c gRPC, %s ledger, break=%q)", ln.Addr(), *ledgerProto, *brk)
	log.Fatal(srv.Serve(ln))
}
