// Command failsafe-orders is an order API on the standard library's
// http.ServeMux whose payment gateway charges go through
// github.com/failsafe-go/failsafe-go's failsafehttp round tripper, composed
// as failsafe-go's docs show: a hedge policy (a copy after 250 ms, up to 2
// hedges, within a hedge budget) around an adaptive throttler that counts
// the gateway's 429 refusals as failures. Keys are tokens scoped by
// X-Tenant; deadlines arrive and leave in X-Request-Timeout-Ms.
//
//	failsafe-orders -addr 127.0.0.1:8080 -gateway http://127.0.0.1:9091
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

	mux := http.NewServeMux()
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.Handle("POST /api/orders", &orderHandler{keys: newKeyStore(), gateway: newGateway(*gatewayURL)})
	log.Fatal(http.ListenAndServe(*addr, mux))
}
