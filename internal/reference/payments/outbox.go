package payments

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
	"github.com/resilcheck/resilcheck/internal/reference/store"
)

// OutboxConfig is the service's event relay: every succeeded payment's
// event, written to the store's outbox in the payment's transaction, is
// published to Subject on a NATS JetStream broker under the payment's id
// as Nats-Msg-Id, and marked once the broker confirmed it. The zero value
// of each field but URL and Subject selects its default, in brackets.
type OutboxConfig struct {
	URL      string        // the broker, nats://…; empty = the service publishes no events
	Subject  string        // where events are published
	Interval time.Duration // how often the relay looks for unpublished events, besides each commit's wake-up [250ms]
	Timeout  time.Duration // bound on one publish's confirmation [1s]
}

func (c OutboxConfig) withDefaults() OutboxConfig {
	if c.Interval <= 0 {
		c.Interval = 250 * time.Millisecond
	}
	if c.Timeout <= 0 {
		c.Timeout = time.Second
	}
	return c
}

// relayBatch is how many events one pass of the relay publishes at most,
// pipelined: a backlog (after an outage) drains in a few passes.
const relayBatch = 500

// publisher owns the service's broker connection: the relay's, or, under
// outbox-dual-write, the request path's.
type publisher struct {
	s   *Server
	cfg OutboxConfig

	mu   sync.Mutex
	cur  *publishing // nil when stopped
	wake chan struct{}
}

// publishing is one life of the publisher, from start to a crash.
type publishing struct {
	nc   *nats.Conn
	js   jetstream.JetStream
	stop context.CancelFunc
	done chan struct{} // closed when the relay loop returned
}

// start connects (retrying in the background while the broker is down)
// and runs the relay, unless the service publishes in the request path
// or has no relay.
func (p *publisher) start() error {
	nc, err := nats.Connect(p.cfg.URL, nats.Name("payments-relay"), nats.RetryOnFailedConnect(true),
		nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		return fmt.Errorf("payments: outbox: connect %s: %w", p.cfg.URL, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return fmt.Errorf("payments: outbox: %w", err)
	}
	ctx, stop := context.WithCancel(context.Background())
	l := &publishing{nc: nc, js: js, stop: stop, done: make(chan struct{})}
	p.mu.Lock()
	p.cur = l
	p.mu.Unlock()
	d := p.s.cfg.defects
	if d.Has(defect.OutboxDualWrite) || d.Has(defect.OutboxNoRelay) {
		close(l.done)
		return nil
	}
	go p.relay(ctx, l)
	return nil
}

// stop ends the publisher as a crash would: the connection goes, with
// whatever its reconnect buffer held, and the relay loop with it.
func (p *publisher) stop() {
	p.mu.Lock()
	l := p.cur
	p.cur = nil
	p.mu.Unlock()
	if l == nil {
		return
	}
	l.stop()
	l.nc.Close()
	<-l.done
}

// relay publishes the outbox's unpublished events every Interval (and
// when a payment commits), oldest first, stopping a pass at the first
// publish the broker does not confirm: the next pass publishes it again,
// under the same id, so a consumer deduplicating by Nats-Msg-Id takes it
// once.
func (p *publisher) relay(ctx context.Context, l *publishing) {
	defer close(l.done)
	tick := time.NewTicker(p.cfg.Interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-p.wake:
		}
		evs, err := p.s.store.Unpublished(ctx, relayBatch)
		if err != nil || len(evs) == 0 {
			continue
		}
		// A mark that fails publishes again next pass, under the same id.
		_ = p.s.store.MarkPublished(ctx, p.publishAll(ctx, l, evs)...)
	}
}

// publishAll publishes evs pipelined and returns the ids of those the
// broker confirmed within Timeout.
func (p *publisher) publishAll(ctx context.Context, l *publishing, evs []store.OutboxEvent) []string {
	futures := make([]jetstream.PubAckFuture, 0, len(evs))
	for _, ev := range evs {
		id := ev.ID
		if p.s.cfg.defects.Has(defect.OutboxNewID) {
			id = p.s.rng.id("evt")
		}
		msg := &nats.Msg{Subject: p.cfg.Subject, Header: nats.Header{}, Data: ev.Payload}
		msg.Header.Set(nats.MsgIdHdr, id)
		f, err := l.js.PublishMsgAsync(msg)
		if err != nil {
			break
		}
		futures = append(futures, f)
	}
	timeout := time.NewTimer(p.cfg.Timeout)
	defer timeout.Stop()
	var done []string
	for i, f := range futures {
		select {
		case <-f.Ok():
			done = append(done, evs[i].ID)
		case <-f.Err():
		case <-timeout.C:
			return done
		case <-ctx.Done():
			return done
		}
	}
	return done
}

// publish sends one event and waits for the broker's confirmation.
func (p *publisher) publish(ctx context.Context, l *publishing, id string, payload []byte) error {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	msg := &nats.Msg{Subject: p.cfg.Subject, Header: nats.Header{}, Data: payload}
	msg.Header.Set(nats.MsgIdHdr, id)
	_, err := l.js.PublishMsg(ctx, msg)
	return err
}

// committed is called once a succeeded payment is committed: it wakes the
// relay, or, under outbox-dual-write, publishes the event itself, once,
// and drops it when the broker does not confirm it.
func (p *publisher) committed(pay *store.Payment) {
	if !p.s.cfg.defects.Has(defect.OutboxDualWrite) {
		select {
		case p.wake <- struct{}{}:
		default:
		}
		return
	}
	p.mu.Lock()
	l := p.cur
	p.mu.Unlock()
	if l == nil {
		return
	}
	body, _ := json.Marshal(map[string]any{"type": "payment.succeeded", "id": pay.ID, "key": pay.Key,
		"amount": pay.Amount, "currency": pay.Currency, "charge_id": pay.ChargeID})
	if err := p.publish(context.Background(), l, pay.ID, body); err != nil {
		p.s.log.Warn("payments: publish event", "payment", pay.ID, "err", err)
	}
}
