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

	mu  sync.Mutex
	cur *consuming // nil when stopped
}

// consuming is one life of the consumer, from start to a stop (a crash).
type consuming struct {
	nc     *nats.Conn
	cc     jetstream.ConsumeContext // nil until bound; guarded by mu
	cancel context.CancelFunc

	mu      sync.Mutex
	stopped bool
	wg      sync.WaitGroup // the handler in flight; Add only while not stopped
}

// enter admits a handler unless the life is over; leave with wg.Done.
func (l *consuming) enter() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return false
	}
	l.wg.Add(1)
	return true
}

// start connects and begins consuming.
func (c *consumer) start(ctx context.Context) error {
	// The broker may be down (a crash during an outage): the connection
	// is retried in the background, and so is binding to the consumer.
	nc, err := nats.Connect(c.cfg.URL, nats.Name("payments-consumer"), nats.RetryOnFailedConnect(true),
		nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		return fmt.Errorf("payments: consumer: connect %s: %w", c.cfg.URL, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return fmt.Errorf("payments: consumer: %w", err)
	}
	hctx, cancel := context.WithCancel(context.Background())
	l := &consuming{nc: nc, cancel: cancel}
	c.mu.Lock()
	c.cur = l
	c.mu.Unlock()
	bind := func(ctx context.Context) error {
		cons, err := js.Consumer(ctx, c.cfg.Stream, c.cfg.Consumer)
		if err != nil {
			return err
		}
		cc, err := cons.Consume(func(m jetstream.Msg) {
			if !l.enter() {
				return
			}
			defer l.wg.Done()
			c.handle(hctx, nc, m)
		})
		if err != nil {
			return err
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.stopped {
			cc.Stop()
			return nil
		}
		l.cc = cc
		return nil
	}
	if nc.IsConnected() && bind(ctx) == nil {
		return nil
	}
	go func() {
		for hctx.Err() == nil {
			bctx, bcancel := context.WithTimeout(hctx, time.Second)
			err := bind(bctx)
			bcancel()
			if err == nil {
				return
			}
			select {
			case <-hctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	return nil
}

// stop ends consuming as a crash would: the connection goes first, so no
// ack or nak leaves after it, then the message in hand is abandoned.
func (c *consumer) stop() {
	c.mu.Lock()
	l := c.cur
	c.cur = nil
	c.mu.Unlock()
	if l == nil {
		return
	}
	l.mu.Lock()
	l.stopped = true
	cc := l.cc
	l.mu.Unlock()
	l.nc.Close()
	if cc != nil {
		cc.Stop()
	}
	l.cancel()
	l.wg.Wait()
}

// handle takes one message: a payment charged under the message's id, as
// a POST /v1/payments is under its Idempotency-Key (claim, charge,
// complete), then acked; a failure the next delivery may cure is asked
// for again after Retry, or the failure's Retry-After when longer; a body
// that cannot be a payment is dead-lettered at its MaxDeliver-th delivery.
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
		if d.Has(defect.ConsumerPoisonBlocks) {
			c.retryInPlace(ctx, m)
		}
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
		// Not before the processor may answer again (its Retry-After, an
		// open breaker's remaining delay): max_deliver counts every
		// delivery, and one spent on a breaker still open is lost to it.
		_ = m.NakWithDelay(max(c.cfg.Retry, rep.retryAfter))
	}
}

// retryInPlace is the consumer-poison-blocks defect: a message it cannot
// parse is tried again in the handler, MaxDeliver times Retry doubling
// apart, telling the broker it is still in progress, before the usual
// handling; the handler, the consumer's only one, takes nothing else
// meanwhile.
func (c *consumer) retryInPlace(ctx context.Context, m jetstream.Msg) {
	wait := c.cfg.Retry
	for range c.cfg.MaxDeliver {
		_ = m.InProgress()
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		if _, err := parsePayment(m.Data()); err == nil {
			return
		}
		wait *= 2
	}
}
