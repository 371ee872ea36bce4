//go:build bench

// Command proxy measures the resilcheck fault proxy's pass-through cost:
// throughput, median latency and (for targets in their own process) CPU per
// request at 1 and 64 concurrent keep-alive connections (and HTTP/2 at 1
// and 64 streams on one connection, unless -h2=false), direct to a
// loopback upstream, through resilcheck's proxy with no rules (embedded, and
// as "resilcheck proxy" when -resilcheck names a binary), through a bare TCP
// relay in its own process (the floor for any proxy process), and through
// toxiproxy when -toxiproxy names its server. Rounds interleave the targets
// so drift in the machine's load touches all of them alike.
//
//	go run -tags bench ./bench/proxy [-resilcheck bin] [-toxiproxy /path/to/server] [-d 3s] [-rounds 3] [-work 0] [-h2=false]
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
	cpu    time.Duration // CPU the target process spent per request; 0 if not measured
}

// target is one way to reach the upstream; pid is its own process, if any.
type target struct {
	name, url string
	pid       int
}

func main() {
	toxi := flag.String("toxiproxy", "", "path to a toxiproxy v2 server binary (optional)")
	rcBin := flag.String("resilcheck", "", "path to a resilcheck binary: also measure 'resilcheck proxy' as its own process, as toxiproxy is")
	dur := flag.Duration("d", 3*time.Second, "measurement time per run")
	rounds := flag.Int("rounds", 3, "runs per configuration; the median run is reported")
	work := flag.Duration("work", 0, "service time the upstream spends per request")
	size := flag.Int("size", 64, "response body bytes")
	prof := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	h2 := flag.Bool("h2", true, "also measure HTTP/2 (h2c both ways) at 1 and 64 streams on one connection")
	relayListen := flag.String("relay-listen", "", "internal: serve as the tcp-relay on this address")
	relayTo := flag.String("relay-to", "", "internal: the tcp-relay's upstream address")
	flag.Parse()
	if *relayListen != "" {
		relay(*relayListen, *relayTo)
		return
	}
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			log.Fatal(err)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}

	up := upstream(*work, *size)
	targets := []target{{name: "direct", url: up}}
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
	targets = append(targets, target{name: "in-process", url: pu})
	rt, stop := spawn("tcp-relay", os.Args[0], []string{"-relay-to", u.Host}, nil)
	defer stop()
	targets = append(targets, rt)
	if *rcBin != "" {
		t, stop := spawn("resilcheck", *rcBin, []string{"proxy", "--upstream", up, "--seed", "1"}, func(addr string) []string { return []string{"--listen", addr} })
		defer stop()
		targets = append(targets, t)
	}
	if *toxi != "" {
		t, stop := toxiproxy(*toxi, u.Host)
		defer stop()
		targets = append(targets, t)
	}
	fmt.Printf("upstream work %v, body %d B, %v per run, %d rounds with the targets interleaved; medians\n", *work, *size, *dur, *rounds)
	fmt.Printf("tcp-relay: a bare TCP relay (two io.Copy goroutines per connection) as its own process, the floor for any proxy process here\n\n")
	fmt.Printf("%-11s %5s %10s %9s %9s %9s %9s %10s\n", "target", "conns", "req/s", "median", "p99", "x direct", "+median", "cpu/req")
	for _, conns := range []int{1, 64} {
		table(targets, conns, *dur, *rounds, http1Transport)
	}
	if *h2 {
		h2Rows(*work, *size, *dur, *rounds)
	}
}

// table measures every target at n concurrent requests, rounds times
// interleaved, and prints a row per target against the first.
func table(targets []target, n int, d time.Duration, rounds int, transport func(int) *http.Transport) {
	runs := make([][]result, len(targets))
	for range rounds {
		for i, t := range targets {
			runs[i] = append(runs[i], measure(t, n, d, transport))
		}
	}
	var base result
	for i, t := range targets {
		r := medianOf(runs[i])
		if i == 0 {
			base = r
		}
		cpu := "-"
		if r.cpu > 0 {
			cpu = r.cpu.Round(100 * time.Nanosecond).String()
		}
		fmt.Printf("%-11s %5d %10.0f %9v %9v %9.2f %9v %10s\n", t.name, n, r.rps,
			r.median.Round(time.Microsecond), r.p99.Round(time.Microsecond), r.rps/base.rps,
			(r.median - base.median).Round(time.Microsecond), cpu)
	}
}

// http1Transport gives each of conns goroutines a keep-alive connection.
func http1Transport(conns int) *http.Transport {
	return &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns, Proxy: nil, DisableCompression: true}
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

// medianOf takes each figure's median over the rounds on its own.
func medianOf(rs []result) result {
	med := func(f func(result) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return result{
		rps:    med(func(r result) float64 { return r.rps }),
		median: time.Duration(med(func(r result) float64 { return float64(r.median) })),
		p99:    time.Duration(med(func(r result) float64 { return float64(r.p99) })),
		cpu:    time.Duration(med(func(r result) float64 { return float64(r.cpu) })),
	}
}

// measure runs t and, for a target in its own process, charges the CPU
// that process used to the requests served.
func measure(t target, conns int, d time.Duration, transport func(int) *http.Transport) result {
	before := cpuTime(t.pid)
	r, n := run(t.url, conns, d, transport(conns))
	if after := cpuTime(t.pid); t.pid > 0 && after > 0 && n > 0 {
		r.cpu = (after - before) / time.Duration(n)
	}
	return r
}

// cpuTime is a process's user plus system time from /proc, or 0 where
// there is none.
func cpuTime(pid int) time.Duration {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the parenthesised command name; utime and stime are the
	// 14th and 15th fields, in clock ticks (100 per second on Linux).
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	var ut, st int64
	fmt.Sscan(f[11], &ut)
	fmt.Sscan(f[12], &st)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// run drives target from conns goroutines through tr (a keep-alive
// connection each over HTTP/1.1, streams of one connection over HTTP/2),
// and returns throughput, latency quantiles and the number of requests
// measured (warm-up included, for the CPU share).
func run(target string, conns int, d time.Duration, tr *http.Transport) (result, int) {
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
	return result{rps: float64(len(all)) / elapsed.Seconds(), median: all[len(all)/2], p99: all[len(all)*99/100]}, len(all) + conns*20
}

// toxiproxy starts the server binary and creates a proxy to upstream with
// no toxics, returning its URL.
func toxiproxy(bin, upstream string) (target, func()) {
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
	return target{name: "toxiproxy", url: "http://" + created.Listen, pid: cmd.Process.Pid}, func() { cmd.Process.Kill(); cmd.Wait() }
}

// spawn starts bin with args plus listen(addr) (default: -relay-listen
// addr) as its own process, so every proxy competes for the CPU on the same
// terms, waits until it accepts connections and returns it as a target.
func spawn(name, bin string, args []string, listen func(string) []string) (target, func()) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	if listen == nil {
		listen = func(a string) []string { return []string{"-relay-listen", a} }
	}
	cmd := exec.Command(bin, append(args, listen(addr)...)...)
	cmd.Stderr = os.Stderr
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
	return target{name: name, url: "http://" + addr, pid: cmd.Process.Pid}, func() { cmd.Process.Kill(); cmd.Wait() }
}

// relay is the floor: a TCP relay that copies bytes both ways, with no
// HTTP, no journal, no faults.
func relay(listen, to string) {
	l, err := net.Listen("tcp", listen)
	if err != nil {
		log.Fatal(err)
	}
	for {
		c, err := l.Accept()
		if err != nil {
			log.Fatal(err)
		}
		go func() {
			defer c.Close()
			u, err := net.Dial("tcp", to)
			if err != nil {
				return
			}
			defer u.Close()
			go io.Copy(u, c)
			io.Copy(c, u)
		}()
	}
}
