package payments

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

// ConsumerConfig is the service's queue consumer: it takes payment
// requests from a NATS JetStream durable consumer, each message a body as
// POST /v1/payments takes, keyed by its Nats-Msg-Id. The zero value of
// each field but URL, Stream and Consumer selects its default, in brackets.
type ConsumerConfig struct {
	URL        string        // the broker, nats://…; empty = the service consumes no queue
	Stream     string        // the stream the durable consumer reads
	Consumer   string        // the durable consumer's name
	DeadLetter string        // where a message it cannot parse goes after MaxDeliver deliveries; empty = nowhere
	MaxDeliver int           // deliveries of a message it cannot parse before it dead-letters it [3]
	Retry      time.Duration // how long after a failed delivery the message is asked for again [200ms]
}

func (c ConsumerConfig) withDefaults() ConsumerConfig {
	if c.MaxDeliver <= 0 {
		c.MaxDeliver = 3
	}
	if c.Retry <= 0 {
		c.Retry = 200 * time.Millisecond
	}
	return c
}

// queueTenant is the tenant queued payments belong to: the queue carries
// no caller.
const queueTenant = "queue"

// consumer runs the service's queue consumer, one message at a time.
type consumer struct {
	s   *Server
	cfg ConsumerConfig

	mu     sync.Mutex
	nc     *nats.Conn
	cc     jetstream.ConsumeContext
	cancel context.CancelFunc
	wg     sync.WaitGroup // the handler in flight
}

// start connects and begins consuming.
func (c *consumer) start(ctx context.Context) error {
	nc, err := nats.Connect(c.cfg.URL, nats.Name("payments-consumer"))
	if err != nil {
		return fmt.Errorf("payments: consumer: connect %s: %w", c.cfg.URL, err)
	}
	js, err := jetstream.New(nc)
	if err == nil {
		var cons jetstream.Consumer
		if cons, err = js.Consumer(ctx, c.cfg.Stream, c.cfg.Consumer); err == nil {
			hctx, cancel := context.WithCancel(context.Background())
			var cc jetstream.ConsumeContext
			cc, err = cons.Consume(func(m jetstream.Msg) {
				c.wg.Add(1)
				defer c.wg.Done()
				c.handle(hctx, nc, m)
			})
			if err == nil {
				c.mu.Lock()
				c.nc, c.cc, c.cancel = nc, cc, cancel
				c.mu.Unlock()
				return nil
			}
			cancel()
		}
	}
	nc.Close()
	return fmt.Errorf("payments: consumer %s/%s: %w", c.cfg.Stream, c.cfg.Consumer, err)
}

// stop ends consuming as a crash would: the connection goes first, so no
// ack or nak leaves after it, then the message in hand is abandoned.
func (c *consumer) stop() {
	c.mu.Lock()
	nc, cc, cancel := c.nc, c.cc, c.cancel
	c.nc, c.cc, c.cancel = nil, nil, nil
	c.mu.Unlock()
	if nc == nil {
		return
	}
	nc.Close()
	cc.Stop()
	cancel()
	c.wg.Wait()
}

// handle takes one message: a payment charged under the message's id, as
// a POST /v1/payments is under its Idempotency-Key (claim, charge,
// complete), then acked; a failure the next delivery may cure is asked
// for again after Retry; a body that cannot be a payment is dead-lettered
// at its MaxDeliver-th delivery.
func (c *consumer) handle(ctx context.Context, nc *nats.Conn, m jetstream.Msg) {
	d := c.s.cfg.defects
	md, err := m.Metadata()
	if err != nil {
		_ = m.Term() // not a JetStream delivery
		return
	}
	id := m.Headers().Get(jetstream.MsgIDHeader)
	req, perr := parsePayment(m.Data())
	if perr != nil || id == "" {
		if d.Has(defect.ConsumerNoDeadLetter) || int(md.NumDelivered) < c.cfg.MaxDeliver || c.cfg.DeadLetter == "" {
			_ = m.NakWithDelay(c.cfg.Retry)
			return
		}
		dead := &nats.Msg{Subject: c.cfg.DeadLetter, Header: m.Headers(), Data: m.Data()}
		if err := nc.PublishMsg(dead); err != nil {
			_ = m.NakWithDelay(c.cfg.Retry)
			return
		}
		_ = m.Term()
		return
	}
	if d.Has(defect.ConsumerAckFirst) {
		_ = m.DoubleAck(ctx)
	}
	key := id
	if d.Has(defect.ConsumerFreshKey) {
		key = fmt.Sprintf("%s.%d.%d", id, md.Sequence.Stream, md.NumDelivered)
	}
	j := job{tenant: queueTenant, recTenant: c.s.recordTenant(queueTenant), key: key, req: req,
		fp: fingerprint("QUEUE", c.cfg.Stream, req.canonical), deadline: time.Now().Add(c.s.cfg.maxBudget)}
	jctx, cancel := context.WithDeadline(ctx, j.deadline)
	defer cancel()
	rep := c.s.createClaimed(jctx, j)
	if d.Has(defect.ConsumerAckFirst) || d.Has(defect.ConsumerNoAck) || ctx.Err() != nil {
		return // acked already, never, or crashed: nothing more leaves
	}
	switch {
	case rep.status/100 == 2, rep.status == http.StatusPaymentRequired:
		// Settled: charged, or declined for good.
		if err := m.DoubleAck(jctx); err != nil && !errors.Is(err, context.Canceled) {
			c.s.log.Warn("payments: consumer ack", "id", id, "err", err)
		}
	case rep.status == http.StatusUnprocessableEntity:
		_ = m.Term() // the id was used with another payment: no delivery cures it
	default:
		_ = m.NakWithDelay(c.cfg.Retry)
	}
}
