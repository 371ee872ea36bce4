//go:build bench

// Command proxy measures the resilcheck fault proxy's pass-through cost:
// throughput and median latency at 1 and 64 concurrent keep-alive
// connections, direct to a loopback upstream, through resilcheck's proxy
// with no rules, and through toxiproxy when -toxiproxy names its server.
//
//	go run -tags bench ./bench/proxy [-toxiproxy /path/to/server] [-d 3s] [-rounds 3] [-work 0]
//
// It is built only with the bench tag, outside the default test run.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/resilcheck/resilcheck/faults"
)

type result struct {
	rps    float64
	median time.Duration
	p99    time.Duration
}

func main() {
	toxi := flag.String("toxiproxy", "", "path to a toxiproxy v2 server binary (optional)")
	rcBin := flag.String("resilcheck", "", "path to a resilcheck binary: also measure 'resilcheck proxy' as its own process, as toxiproxy is")
	dur := flag.Duration("d", 3*time.Second, "measurement time per run")
	rounds := flag.Int("rounds", 3, "runs per configuration; the median run is reported")
	work := flag.Duration("work", 0, "service time the upstream spends per request")
	size := flag.Int("size", 64, "response body bytes")
	prof := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			log.Fatal(err)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}

	up := upstream(*work, *size)
	targets := []struct{ name, url string }{{"direct", up}}
	u, _ := url.Parse(up)
	p, err := faults.NewProxy(faults.WithUpstream(u), faults.WithSeed(1))
	if err != nil {
		log.Fatal(err)
	}
	pu, err := p.Start("127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	targets = append(targets, struct{ name, url string }{"in-process", pu})
	if *rcBin != "" {
		ru, stop := resilcheckProxy(*rcBin, up)
		defer stop()
		targets = append(targets, struct{ name, url string }{"resilcheck", ru})
	}
	if *toxi != "" {
		tu, stop := toxiproxy(*toxi, u.Host)
		defer stop()
		targets = append(targets, struct{ name, url string }{"toxiproxy", tu})
	}
	fmt.Printf("upstream work %v, body %d B, %v x %d rounds per cell, GOMAXPROCS-bound loopback\n\n", *work, *size, *dur, *rounds)
	fmt.Printf("%-11s %5s %12s %10s %10s %10s %10s\n", "target", "conns", "req/s", "median", "p99", "x direct", "+median")
	for _, conns := range []int{1, 64} {
		var base result
		for _, t := range targets {
			r := medianRun(t.url, conns, *dur, *rounds)
			if t.name == "direct" {
				base = r
			}
			fmt.Printf("%-11s %5d %12.0f %10v %10v %10.2f %10v\n", t.name, conns, r.rps,
				r.median.Round(time.Microsecond), r.p99.Round(time.Microsecond), r.rps/base.rps,
				(r.median - base.median).Round(time.Microsecond))
		}
	}
}

func upstream(work time.Duration, size int) string {
	body := bytes.Repeat([]byte("x"), size)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if work > 0 {
			time.Sleep(work)
		}
		w.Write(body)
	}))
	return "http://" + l.Addr().String()
}

func medianRun(target string, conns int, d time.Duration, rounds int) result {
	var rs []result
	for range rounds {
		rs = append(rs, run(target, conns, d))
	}
	slices.SortFunc(rs, func(a, b result) int { return int(a.rps - b.rps) })
	return rs[len(rs)/2]
}

// run drives target from conns goroutines, each on its own keep-alive
// connection, and returns throughput and latency quantiles.
func run(target string, conns int, d time.Duration) result {
	tr := &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns, Proxy: nil, DisableCompression: true}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	get := func() time.Duration {
		t0 := time.Now()
		resp, err := c.Get(target + "/bench")
		if err != nil {
			log.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return time.Since(t0)
	}
	for range conns * 20 { // warm the connections and the proxy
		get()
	}
	var stop atomic.Bool
	lat := make([][]time.Duration, conns)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range conns {
		wg.Go(func() {
			for !stop.Load() {
				lat[i] = append(lat[i], get())
			}
		})
	}
	time.Sleep(d)
	stop.Store(true)
	wg.Wait()
	elapsed := time.Since(start)
	all := slices.Concat(lat...)
	slices.Sort(all)
	return result{rps: float64(len(all)) / elapsed.Seconds(), median: all[len(all)/2], p99: all[len(all)*99/100]}
}

// toxiproxy starts the server binary and creates a proxy to upstream with
// no toxics, returning its URL.
func toxiproxy(bin, upstream string) (string, func()) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	apiPort := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "-host", "127.0.0.1", "-port", fmt.Sprint(apiPort))
	cmd.Env = append(os.Environ(), "LOG_LEVEL=error")
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	api := fmt.Sprintf("http://127.0.0.1:%d", apiPort)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		if resp, err := http.Get(api + "/version"); err == nil {
			resp.Body.Close()
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	body := fmt.Sprintf(`{"name":"bench","listen":"127.0.0.1:0","upstream":%q}`, upstream)
	resp, err := http.Post(api+"/proxies", "application/json", strings.NewReader(body))
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var created struct{ Listen string }
	if err := json.NewDecoder(resp.Body).Decode(&created); err != nil || created.Listen == "" {
		log.Fatalf("toxiproxy: create proxy: %v (%d)", err, resp.StatusCode)
	}
	return "http://" + created.Listen, func() { cmd.Process.Kill(); cmd.Wait() }
}

// resilcheckProxy starts "resilcheck proxy" in its own process, so it and
// toxiproxy compete for the CPU on the same terms, and returns its URL.
func resilcheckProxy(bin, upstream string) (string, func()) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "proxy", "--listen", addr, "--upstream", upstream, "--seed", "1")
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "http://" + addr, func() { cmd.Process.Kill(); cmd.Wait() }
}
