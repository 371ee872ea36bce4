package natsbroker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/resilcheck/resilcheck/broker"
)

// EventsStream is the stream that stores the events a service publishes
// (Config.Events).
const EventsStream = "RESILCHECK_EVENTS"

// withheldPrefix is where Withhold moves the events stream's subject: a
// publish to the real one then finds no stream to store and confirm it.
const withheldPrefix = "resilcheck.withheld."

func (b *NATS) eventsStream(subject string) jetstream.StreamConfig {
	return jetstream.StreamConfig{Name: EventsStream, Subjects: []string{subject}, Duplicates: broker.DupWindow, Storage: jetstream.FileStorage}
}

// Down stops the server, as an outage would: every connection drops and
// no publish is taken until Up. The store is kept.
func (b *NATS) Down() {
	b.srvMu.Lock()
	srv := b.srv
	b.srvMu.Unlock()
	srv.Shutdown()
	srv.WaitForShutdown()
}

// Up starts the server again on the same port with the same store, and
// returns once resilcheck's own connection is back.
func (b *NATS) Up(ctx context.Context) error {
	port := 0
	if _, err := fmt.Sscanf(b.url, "nats://127.0.0.1:%d", &port); err != nil {
		return fmt.Errorf("natsbroker: up: %w", err)
	}
	if err := b.serve(ctx, port); err != nil {
		return fmt.Errorf("natsbroker: up: %w", err)
	}
	for b.nc.Status() != nats.CONNECTED {
		select {
		case <-ctx.Done():
			return fmt.Errorf("natsbroker: up: %w", ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}

// Withhold stops the events stream from taking publishes: its subject
// moves aside, so a publish is journaled but neither stored nor
// confirmed. The journal's subscription still takes the subject, so the
// server delivers the publish and sends no no-responders status: a
// JetStream publish waits out its ack timeout. Restore undoes it.
func (b *NATS) Withhold(ctx context.Context) error {
	return b.setEventsSubject(ctx, withheldPrefix+b.cfg.Events)
}

// Restore lets the events stream take publishes again.
func (b *NATS) Restore(ctx context.Context) error { return b.setEventsSubject(ctx, b.cfg.Events) }

func (b *NATS) setEventsSubject(ctx context.Context, subject string) error {
	if b.cfg.Events == "" {
		return errors.New("natsbroker: no events subject")
	}
	if _, err := b.js.UpdateStream(ctx, b.eventsStream(subject)); err != nil {
		return fmt.Errorf("natsbroker: events stream: %w", err)
	}
	return nil
}

// Stored returns the events the events stream holds, in order, each with
// its Nats-Msg-Id. Messages read once are kept, so a call reads only
// those stored since the last (the stream only grows).
func (b *NATS) Stored(ctx context.Context) ([]broker.Event, error) {
	b.storedMu.Lock()
	defer b.storedMu.Unlock()
	st, err := b.js.Stream(ctx, EventsStream)
	if err != nil {
		return nil, fmt.Errorf("natsbroker: events stream: %w", err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("natsbroker: events stream: %w", err)
	}
	for seq := max(b.storedNext, info.State.FirstSeq); seq > 0 && seq <= info.State.LastSeq; seq++ {
		m, err := st.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			b.storedNext = seq + 1
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("natsbroker: events stream message %d: %w", seq, err)
		}
		b.stored = append(b.stored, broker.Event{At: m.Time, Kind: broker.Emitted, Seq: seq, MsgID: m.Header.Get(nats.MsgIdHdr), Body: m.Data})
		b.storedNext = seq + 1
	}
	return slices.Clone(b.stored), nil
}
