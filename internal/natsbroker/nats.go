// Package natsbroker runs an embedded NATS JetStream server on loopback
// for a queue-consumer target and journals what crosses it, as
// broker.Events (see package broker).
package natsbroker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/resilcheck/resilcheck/broker"
)

// Config is the stream and durable consumer the broker sets up before the
// target starts. Zero values are the documented defaults.
type Config struct {
	Stream     string        // the stream over Subject; "" = RESILCHECK
	Subject    string        // where messages are published; required
	Consumer   string        // the durable pull consumer's name; "" = resilcheck
	AckWait    time.Duration // how long a delivery waits for its ack before redelivery; 0 = 1s
	MaxDeliver int           // deliveries of one message at most; 0 = unlimited (-1)
	DeadLetter string        // the subject dead-lettered messages reach; "" = none journaled
	// Events is the subject a service publishes the events of its effects
	// to (the outbox); "" = none. Every publish is journaled, and a stream
	// (EventsStream) stores them and confirms each publish.
	Events string
	// Dir is the JetStream store directory; "" = a temporary one removed by
	// Close.
	Dir string
}

// ErrStart matches every error of a broker that could not start.
var ErrStart = errors.New("NATS JetStream did not start")

// journalBuffer is the journal channel's room: nats.go drops what a full
// channel cannot take (a slow consumer), and the drain loop only appends,
// so it stays far from full.
const journalBuffer = 1 << 16

// readyWait bounds the wait for the server to accept connections.
const readyWait = 10 * time.Second

// NATS is a running embedded NATS JetStream server with its journal.
type NATS struct {
	cfg     Config
	srvMu   sync.Mutex
	srv     *server.Server // replaced by Up after an outage
	url     string
	dir     string     // the JetStream store, kept across an outage
	nc      *nats.Conn // resilcheck's own connection: publishes and the journal
	js      jetstream.JetStream
	tempDir string

	in      chan *nats.Msg // every journaled subscription's messages, in arrival order
	drained chan struct{}  // closed by the drain loop once in is closed and empty
	closeIn sync.Once

	mu         sync.Mutex
	storedMu   sync.Mutex     // guards stored and storedNext, Stored's cache
	stored     []broker.Event // the events stream's messages read so far
	storedNext uint64         // the next sequence Stored reads

	events  []broker.Event
	ids     map[uint64]string           // stream sequence → Nats-Msg-Id
	markers map[*nats.Msg]chan struct{} // sync's markers in flight
}

// StartNATS starts the server on a free loopback port and sets up what
// cfg asks for: the queue's stream and durable consumer when it names a
// Subject (explicit acks, cfg's AckWait and MaxDeliver, pull; a target
// may bind to it or to a consumer of its own on the stream, whose acks
// are journaled too), and the events stream when it names Events. It
// journals from then on. ctx bounds the start only.
func StartNATS(ctx context.Context, cfg Config) (_ *NATS, err error) {
	if cfg.Subject == "" && cfg.Events == "" {
		return nil, errors.New("natsbroker: neither a queue subject nor an events subject")
	}
	cfg.Stream = cmpOr(cfg.Stream, "RESILCHECK")
	cfg.Consumer = cmpOr(cfg.Consumer, "resilcheck")
	if cfg.AckWait <= 0 {
		cfg.AckWait = time.Second
	}
	b := &NATS{cfg: cfg, ids: map[uint64]string{}, markers: map[*nats.Msg]chan struct{}{},
		in: make(chan *nats.Msg, journalBuffer), drained: make(chan struct{})}
	defer func() {
		if err != nil {
			b.Close()
			err = fmt.Errorf("%w: %w", ErrStart, err)
		}
	}()
	go b.drain()
	if b.dir = cfg.Dir; b.dir == "" {
		if b.dir, err = os.MkdirTemp("", "resilcheck-nats-"); err != nil {
			return nil, err
		}
		b.tempDir = b.dir
	}
	if err := b.serve(ctx, server.RANDOM_PORT); err != nil {
		return nil, err
	}
	b.url = b.srv.ClientURL()
	// resilcheck's own connection outlives an outage (Down, Up): it
	// reconnects, and nats.go subscribes again for it.
	if b.nc, err = nats.Connect(b.url, nats.Name("resilcheck"), nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond)); err != nil {
		return nil, err
	}
	var subjects []string
	if cfg.Subject != "" {
		// Acks of any consumer on the stream, in either ack subject form;
		// the broker's advisory that it gave up on a message;
		// dead-lettered copies.
		subjects = append(subjects, "$JS.ACK.>", "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES."+cfg.Stream+".*")
		if cfg.DeadLetter != "" {
			subjects = append(subjects, cfg.DeadLetter)
		}
	}
	if cfg.Events != "" {
		subjects = append(subjects, cfg.Events) // every publish, stored or not
	}
	for _, s := range subjects {
		// One channel for all, so events keep the order they arrived in.
		if _, err := b.nc.ChanSubscribe(s, b.in); err != nil {
			return nil, err
		}
	}
	if b.js, err = jetstream.New(b.nc); err != nil {
		return nil, err
	}
	if cfg.Subject != "" {
		if _, err = b.js.CreateStream(ctx, jetstream.StreamConfig{Name: cfg.Stream, Subjects: []string{cfg.Subject}, Duplicates: broker.DupWindow, Storage: jetstream.FileStorage}); err != nil {
			return nil, fmt.Errorf("stream %s: %w", cfg.Stream, err)
		}
		maxDeliver := cfg.MaxDeliver
		if maxDeliver <= 0 {
			maxDeliver = -1
		}
		if _, err = b.js.CreateOrUpdateConsumer(ctx, cfg.Stream, jetstream.ConsumerConfig{Durable: cfg.Consumer, AckPolicy: jetstream.AckExplicitPolicy,
			AckWait: cfg.AckWait, MaxDeliver: maxDeliver, FilterSubject: cfg.Subject}); err != nil {
			return nil, fmt.Errorf("consumer %s: %w", cfg.Consumer, err)
		}
	}
	if cfg.Events != "" {
		if _, err = b.js.CreateStream(ctx, b.eventsStream(cfg.Events)); err != nil {
			return nil, fmt.Errorf("stream %s: %w", EventsStream, err)
		}
	}
	if err := b.nc.Flush(); err != nil {
		return nil, err
	}
	return b, nil
}

// serve starts a server on port (server.RANDOM_PORT for a free one) with
// b's store, and waits until it accepts connections.
func (b *NATS) serve(ctx context.Context, port int) error {
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: b.dir,
		NoLog: true, NoSigs: true, MaxPayload: 1 << 20})
	if err != nil {
		return err
	}
	go srv.Start()
	wait := readyWait
	if d, ok := ctx.Deadline(); ok {
		wait = max(min(wait, time.Until(d)), 0)
	}
	if !srv.ReadyForConnections(wait) {
		srv.Shutdown()
		return fmt.Errorf("not ready for connections in %s", wait.Round(time.Millisecond))
	}
	b.srvMu.Lock()
	b.srv = srv
	b.srvMu.Unlock()
	return nil
}

// URL is the address a target connects to: nats://127.0.0.1:PORT, the
// same after an outage.
func (b *NATS) URL() string { return b.url }

// Config is the stream and consumer b set up, defaults applied.
func (b *NATS) Config() Config { return b.cfg }

// Publish stores body in the stream under id (its Nats-Msg-Id) and
// returns its sequence; a publish the duplicate window dropped is an
// error matching broker.ErrDuplicate, so a check never believes it
// delivered a message it did not. The event is dated before the publish,
// so the consumer's answer never precedes it.
func (b *NATS) Publish(ctx context.Context, id string, body []byte) (uint64, error) {
	msg := &nats.Msg{Subject: b.cfg.Subject, Header: nats.Header{}, Data: body}
	msg.Header.Set(nats.MsgIdHdr, id)
	at := time.Now()
	ack, err := b.js.PublishMsg(ctx, msg)
	if err != nil {
		return 0, fmt.Errorf("natsbroker: publish %s: %w", id, err)
	}
	if ack.Duplicate {
		return 0, fmt.Errorf("natsbroker: publish %s: dropped as a duplicate of message %d: %w", id, ack.Sequence, broker.ErrDuplicate)
	}
	b.record(broker.Event{At: at, Kind: broker.Published, Seq: ack.Sequence, MsgID: id})
	return ack.Sequence, nil
}

// Outstanding returns how many messages the declared consumer has yet to
// settle: delivered and not acked, or not delivered yet.
func (b *NATS) Outstanding(ctx context.Context) (int, error) {
	c, err := b.js.Consumer(ctx, b.cfg.Stream, b.cfg.Consumer)
	if err != nil {
		return 0, fmt.Errorf("natsbroker: consumer %s: %w", b.cfg.Consumer, err)
	}
	info, err := c.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("natsbroker: consumer %s: %w", b.cfg.Consumer, err)
	}
	return info.NumAckPending + int(info.NumPending), nil
}

// Events returns the journal so far, in the order it arrived. Everything
// the server sent resilcheck's connection before the call is in: the
// connection is flushed (the server's answer follows what it sent
// before), then a marker is passed down the journal's channel behind
// what the flush brought.
func (b *NATS) Events() []broker.Event {
	if b.nc.Flush() == nil {
		b.sync()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	out := slices.Clone(b.events)
	// An ack may arrive before Publish recorded its message's id: the ids
	// are looked up now, not as events arrive.
	for i := range out {
		if out[i].MsgID == "" && out[i].Seq != 0 {
			out[i].MsgID = b.ids[out[i].Seq]
		}
	}
	return out
}

// sync passes a marker down the journal's channel and waits, bounded,
// until the drain loop reached it: everything queued before is recorded.
func (b *NATS) sync() {
	m, done := &nats.Msg{}, make(chan struct{}) // no message has an empty subject
	b.mu.Lock()
	b.markers[m] = done
	b.mu.Unlock()
	select {
	case b.in <- m:
	case <-b.drained:
		return
	}
	select {
	case <-done:
	case <-b.drained:
	case <-time.After(time.Second):
	}
}

// drain records the journal's messages in the order they arrived, until
// Close closes the channel.
func (b *NATS) drain() {
	defer close(b.drained)
	for m := range b.in {
		if m.Subject == "" {
			b.mu.Lock()
			done := b.markers[m]
			delete(b.markers, m)
			b.mu.Unlock()
			if done != nil {
				close(done)
			}
			continue
		}
		b.journal(m, time.Now())
	}
}

// journal records one message of the journaled subscriptions:
// acknowledgements, published to a delivery's ack subject; the broker's
// advisory that it gave up on a message; dead-lettered copies, by their
// subject.
func (b *NATS) journal(m *nats.Msg, now time.Time) {
	if strings.HasPrefix(m.Subject, "$JS.EVENT.ADVISORY.") {
		var adv struct {
			StreamSeq  uint64 `json:"stream_seq"`
			Deliveries int    `json:"deliveries"`
			Consumer   string `json:"consumer"`
		}
		if json.Unmarshal(m.Data, &adv) == nil {
			b.record(broker.Event{At: now, Kind: broker.GaveUp, Seq: adv.StreamSeq, Delivered: adv.Deliveries, Consumer: adv.Consumer})
		}
		return
	}
	if a, ok := parseAck(m.Subject); ok {
		if k := ackKind(m.Data); k != "" && a.stream == b.cfg.Stream {
			b.record(broker.Event{At: now, Kind: k, Seq: a.seq, Delivered: a.delivered, Consumer: a.consumer})
		}
		return
	}
	switch m.Subject {
	case "":
	case b.cfg.DeadLetter:
		b.record(broker.Event{At: now, Kind: broker.DeadLettered, MsgID: m.Header.Get(nats.MsgIdHdr), Body: slices.Clone(m.Data)})
	case b.cfg.Events:
		b.record(broker.Event{At: now, Kind: broker.Emitted, MsgID: m.Header.Get(nats.MsgIdHdr), Body: slices.Clone(m.Data)})
	}
}

func (b *NATS) record(e broker.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if e.MsgID != "" && e.Seq != 0 {
		b.ids[e.Seq] = e.MsgID
	}
	b.events = append(b.events, e)
}

// Close stops the server and the journal, and removes a temporary store.
func (b *NATS) Close() {
	if b.nc != nil {
		b.nc.Close() // no subscription sends on b.in after this
	}
	b.closeIn.Do(func() { close(b.in) })
	<-b.drained
	b.srvMu.Lock()
	srv := b.srv
	b.srvMu.Unlock()
	if srv != nil {
		srv.Shutdown()
		srv.WaitForShutdown()
	}
	if b.tempDir != "" {
		_ = os.RemoveAll(b.tempDir)
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
