package broker

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
	// Dir is the JetStream store directory; "" = a temporary one removed by
	// Close.
	Dir string
}

// dupWindow is the stream's duplicate window: nats-server's least (100ms),
// so the queue suite can deliver the same Nats-Msg-Id again as a publisher
// re-sending after the window would, which is the redelivery a consumer's
// own dedupe must absorb.
const dupWindow = 100 * time.Millisecond

// DupWindow is how long after a publish the broker still drops a second
// publish of the same Nats-Msg-Id.
func DupWindow() time.Duration { return dupWindow }

// NATS is a running embedded NATS JetStream server with its journal.
type NATS struct {
	cfg     Config
	srv     *server.Server
	nc      *nats.Conn // resilcheck's own connection: publishes and the journal
	js      jetstream.JetStream
	tempDir string

	mu     sync.Mutex
	events []Event
	ids    map[uint64]string // stream sequence → Nats-Msg-Id
}

// ErrDuplicate matches the error of a publish the broker dropped as a
// duplicate: an id published within the duplicate window. The server
// forgets ids on a timer, so an id may stay known somewhat past it.
var ErrDuplicate = errors.New("duplicate message id")

// ErrStart matches every error of a broker that could not start.
var ErrStart = errors.New("broker: NATS JetStream did not start")

// StartNATS starts the server on a free loopback port, creates the stream
// and the durable consumer cfg names, and journals from then on. The
// consumer is created with explicit acks, cfg's AckWait and MaxDeliver,
// and a pull subscription; a target that creates or updates it with its
// own settings may. ctx bounds the start only.
func StartNATS(ctx context.Context, cfg Config) (_ *NATS, err error) {
	if cfg.Subject == "" {
		return nil, fmt.Errorf("%w: no subject", ErrStart)
	}
	cfg.Stream = cmpOr(cfg.Stream, "RESILCHECK")
	cfg.Consumer = cmpOr(cfg.Consumer, "resilcheck")
	if cfg.AckWait <= 0 {
		cfg.AckWait = time.Second
	}
	b := &NATS{cfg: cfg, ids: map[uint64]string{}}
	defer func() {
		if err != nil {
			b.Close()
			err = fmt.Errorf("%w: %w", ErrStart, err)
		}
	}()
	dir := cfg.Dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "resilcheck-nats-"); err != nil {
			return nil, err
		}
		b.tempDir = dir
	}
	b.srv, err = server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true, StoreDir: dir,
		NoLog: true, NoSigs: true, MaxPayload: 1 << 20})
	if err != nil {
		return nil, err
	}
	go b.srv.Start()
	wait := 10 * time.Second
	if d, ok := ctx.Deadline(); ok {
		wait = time.Until(d)
	}
	if !b.srv.ReadyForConnections(wait) {
		return nil, errors.New("not ready for connections in " + wait.Round(time.Millisecond).String())
	}
	if b.nc, err = nats.Connect(b.srv.ClientURL(), nats.Name("resilcheck"), nats.NoReconnect()); err != nil {
		return nil, err
	}
	subjects := []string{"$JS.ACK." + cfg.Stream + "." + cfg.Consumer + ".>",
		"$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + cfg.Stream + "." + cfg.Consumer}
	if cfg.DeadLetter != "" {
		subjects = append(subjects, cfg.DeadLetter)
	}
	for _, s := range subjects {
		sub, err := b.nc.Subscribe(s, b.journal)
		if err != nil {
			return nil, err
		}
		// The journal must not drop what a busy consumer exchanges.
		if err := sub.SetPendingLimits(-1, -1); err != nil {
			return nil, err
		}
	}
	if b.js, err = jetstream.New(b.nc); err != nil {
		return nil, err
	}
	if _, err = b.js.CreateStream(ctx, jetstream.StreamConfig{Name: cfg.Stream, Subjects: []string{cfg.Subject}, Duplicates: dupWindow, Storage: jetstream.FileStorage}); err != nil {
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
	return b, b.nc.Flush()
}

// URL is the address a target connects to: nats://127.0.0.1:PORT.
func (b *NATS) URL() string { return b.srv.ClientURL() }

// Config is the stream and consumer b set up, defaults applied.
func (b *NATS) Config() Config { return b.cfg }

// Publish stores body in the stream under id (its Nats-Msg-Id) and
// returns its sequence; a publish the duplicate window dropped is an
// error, so a check never believes it delivered a message it did not.
func (b *NATS) Publish(ctx context.Context, id string, body []byte) (uint64, error) {
	msg := &nats.Msg{Subject: b.cfg.Subject, Header: nats.Header{}, Data: body}
	msg.Header.Set(nats.MsgIdHdr, id)
	ack, err := b.js.PublishMsg(ctx, msg)
	if err != nil {
		return 0, fmt.Errorf("broker: publish %s: %w", id, err)
	}
	if ack.Duplicate {
		return 0, fmt.Errorf("broker: publish %s: dropped as a duplicate of message %d: %w", id, ack.Sequence, ErrDuplicate)
	}
	b.record(Event{At: time.Now(), Kind: Published, Seq: ack.Sequence, MsgID: id})
	return ack.Sequence, nil
}

// Events returns the journal so far, in the order it was recorded. It
// flushes resilcheck's connection first, so every event the server sent
// before the call is in.
func (b *NATS) Events() []Event {
	_ = b.nc.Flush()
	b.mu.Lock()
	defer b.mu.Unlock()
	out := slices.Clone(b.events)
	// An ack may be journaled before Publish recorded its message's id: the
	// ids are looked up now, not as events arrive.
	for i := range out {
		if out[i].MsgID == "" && out[i].Seq != 0 {
			out[i].MsgID = b.ids[out[i].Seq]
		}
	}
	return out
}

// journal records what its subscriptions receive: acknowledgements,
// published to a delivery's ack subject; the broker's advisory that it
// gave up on a message; dead-lettered copies, by their subject.
func (b *NATS) journal(m *nats.Msg) {
	now := time.Now()
	if strings.HasPrefix(m.Subject, "$JS.EVENT.ADVISORY.") {
		var adv struct {
			StreamSeq  uint64 `json:"stream_seq"`
			Deliveries int    `json:"deliveries"`
		}
		if json.Unmarshal(m.Data, &adv) == nil {
			b.record(Event{At: now, Kind: GaveUp, Seq: adv.StreamSeq, Delivered: adv.Deliveries})
		}
		return
	}
	if a, ok := parseAck(m.Subject); ok && b.ours(a) {
		if k := ackKind(m.Data); k != "" {
			b.record(Event{At: now, Kind: k, Seq: a.seq, Delivered: a.delivered})
		}
		return
	}
	if b.cfg.DeadLetter != "" && m.Subject == b.cfg.DeadLetter {
		b.record(Event{At: now, Kind: DeadLettered, MsgID: m.Header.Get(nats.MsgIdHdr), Body: slices.Clone(m.Data)})
	}
}

func (b *NATS) ours(a ackInfo) bool { return a.stream == b.cfg.Stream && a.consumer == b.cfg.Consumer }

func (b *NATS) record(e Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if e.MsgID != "" && e.Seq != 0 {
		b.ids[e.Seq] = e.MsgID
	}
	b.events = append(b.events, e)
}

// Close stops the server and removes a temporary store.
func (b *NATS) Close() {
	if b.nc != nil {
		b.nc.Close()
	}
	if b.srv != nil {
		b.srv.Shutdown()
		b.srv.WaitForShutdown()
	}
	if b.tempDir != "" {
		_ = os.RemoveAll(b.tempDir)
	}
}
