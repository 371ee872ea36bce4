// Package faults is resilcheck's fault-injecting HTTP proxy: a reverse proxy
// to one upstream (or a stand-in that answers itself) that applies
// per-request faults chosen by ordered rules, decides reproducibly from one
// seed, and journals every exchange with monotonic timestamps.
//
// Put a proxy in front of a service, lose half of its payment responses
// after the service committed them, and read what happened:
//
//	j := faults.NewJournal(faults.WithCapacity(50_000))
//	p, err := faults.NewProxy(
//		faults.WithUpstream(target), // *url.URL; omit for a stand-in
//		faults.WithSeed(42),
//		faults.WithJournal(j),
//		faults.WithSide("front"),
//	)
//	if err != nil { ... }
//	url, err := p.Start("127.0.0.1:0")
//	defer p.Close()
//	err = p.Rules().Add(faults.Rule{
//		Name:  "lose-half",
//		Match: faults.Match{Path: "/v1/payments*", Probability: 0.5},
//		Fault: faults.DropResponse{},
//	})
//	// ... drive traffic at url ...
//	lost := j.Snapshot(faults.BySide("front"), faults.ByRule("lose-half"))
//
// Faults are small types registered by name (see CREATING_FAULTS.md):
// delay, latency, abort, drop-response, reset, blackhole, duplicate,
// throttle, truncate, goaway, grpc-status and respond. Over HTTP/2 each
// stream is an exchange: a lost answer resets its stream, goaway sends
// GOAWAY, grpc-status refuses a gRPC call with a Trailers-Only status.
// Rules come from Go, from a YAML rules file (LoadRules) or from the admin
// API (NewAdmin), all decoded strictly.
//
// Two paths serve a connection. Plain HTTP/1.1 requests to an http://
// upstream that no rule could take are relayed by a lean loop on the
// connection's goroutine (leanserver.go, lean.go), journaled like every
// other exchange; the first request it does not serve (a rule's method, path
// or headers match it, HTTP/2, chunked or oversized requests, anything
// unusual in the head) hands the connection to net/http's server, which
// takes the rule decisions, serves faults and every corner of the protocol.
// Neither path ever sends a request upstream twice on its own.
package faults
