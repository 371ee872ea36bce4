// Command hedged-orders is an order API on the standard library's
// http.ServeMux whose payment gateway calls are hedged with
// github.com/cristalhq/hedgedhttp, as its README shows: a charge still
// unanswered after 200 ms gets another copy, up to 3 copies in all, and the
// first answer wins. Keys are tokens scoped by X-Account; deadlines arrive
// and leave in X-Request-Timeout-Ms.
//
//	hedged-orders -addr 127.0.0.1:8080 -gateway http://127.0.0.1:9091
package main

import (
	"flag"
	"log"
	"net/http"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	gatewayURL := flag.String("gateway", "http://127.0.0.1:9091", "payment gateway base URL")
	flag.Parse()

	gw, err := newGateway(*gatewayURL)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.Handle("POST /api/orders", &orderHandler{keys: newKeyStore(), gateway: gw})
	log.Fatal(http.ListenAndServe(*addr, mux))
}
