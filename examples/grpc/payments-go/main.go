// Command payments-go is a gRPC payments service certified by resilcheck
// (examples/grpc): grpc-go v1.85.0 serving payments.v1.Payments over h2c,
// with a unary CreatePayment that dedupes by the idempotency-key metadata
// and charges through an HTTP ledger. -break selects a defect.
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
	ledger := flag.String("ledger", "http://127.0.0.1:9090", "the ledger's base URL; charges are POSTed to /entries")
	brk := flag.String("break", "", "a defect: no-dedupe (charges and answers anew on every call) or no-forward-key (the ledger gets no Idempotency-Key)")
	flag.Parse()
	switch *brk {
	case "", breakNoDedupe, breakNoForwardKey:
	default:
		log.Fatalf("unknown -break %q", *brk)
	}
	svc := &payments{ledger: strings.TrimRight(*ledger, "/"), brk: *brk, keys: map[string]*entry{}}
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
	log.Printf("payments-go listening on %s (h2c gRPC, break=%q)", ln.Addr(), *brk)
	log.Fatal(srv.Serve(ln))
}
