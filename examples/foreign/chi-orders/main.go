// Command chi-orders is an order API on go-chi, limited by httprate and
// calling its payment gateway through hashicorp/go-retryablehttp, each used
// as its README shows. Deadlines arrive as Envoy sets them for the service
// behind it, in x-envoy-expected-rq-timeout-ms; keys are RFC 9651 strings.
//
//	chi-orders -addr 127.0.0.1:8080 -gateway http://127.0.0.1:9091
package main

import (
	"flag"
	"log"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/go-chi/httprate"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	gateway := flag.String("gateway", "http://127.0.0.1:9091", "payment gateway base URL")
	flag.Parse()

	orders := &orderHandler{keys: newKeyStore(), gateway: newGateway(*gateway)}
	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	r.Get("/readyz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	r.With(httprate.Limit(10, time.Second, httprate.WithKeyFuncs(byCustomer))).
		Post("/api/orders", orders.ServeHTTP)
	log.Fatal(http.ListenAndServe(*addr, r))
}

// byCustomer keys the limit by the customer, as httprate's README shows for
// a header.
func byCustomer(r *http.Request) (string, error) { return r.Header.Get("X-Customer"), nil }
