//go:build bench

package main

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/resilcheck/resilcheck/faults"
)

// h2Rows measures HTTP/2 in the clear (h2c, prior knowledge) at 1 and 64
// concurrent streams on one client connection: direct to an h2c upstream,
// through the embedded proxy speaking h2c on both sides, and through the
// bare TCP relay, which passes the h2c bytes through untouched.
func h2Rows(work time.Duration, size int, d time.Duration, rounds int) {
	up := upstreamH2(work, size)
	u, _ := url.Parse(up)
	p, err := faults.NewProxy(faults.WithUpstream(u), faults.WithUpstreamHTTP2(), faults.WithSeed(1))
	if err != nil {
		log.Fatal(err)
	}
	pu, err := p.Start("127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	rt, stop := spawn("tcp-relay", os.Args[0], []string{"-relay-to", u.Host}, nil)
	defer stop()
	targets := []target{{name: "direct", url: up}, {name: "in-process", url: pu}, rt}
	fmt.Printf("\nHTTP/2 (h2c both ways), one client connection\n")
	fmt.Printf("%-11s %7s %10s %9s %9s %9s %9s %10s\n", "target", "streams", "req/s", "median", "p99", "x direct", "+median", "cpu/req")
	for _, streams := range []int{1, 64} {
		table(targets, streams, d, rounds, h2cTransport)
	}
}

// h2cTransport multiplexes every request on one h2c connection.
func h2cTransport(int) *http.Transport {
	var protos http.Protocols
	protos.SetUnencryptedHTTP2(true)
	return &http.Transport{Protocols: &protos, Proxy: nil, DisableCompression: true}
}

// upstreamH2 serves h2c (and HTTP/1.1) as upstream does HTTP/1.1.
func upstreamH2(work time.Duration, size int) string {
	body := bytes.Repeat([]byte("x"), size)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	var protos http.Protocols
	protos.SetHTTP1(true)
	protos.SetUnencryptedHTTP2(true)
	srv := &http.Server{Protocols: &protos, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if work > 0 {
			time.Sleep(work)
		}
		w.Write(body)
	})}
	go srv.Serve(l)
	return "http://" + l.Addr().String()
}
