// Command watermill-outbox is an order service whose events leave through
// the transactional outbox as watermill documents it: the request path
// publishes the event with components/forwarder's Publisher wrapped around
// a watermill-sql Publisher on the order's own transaction, and a
// forwarder.Forwarder relays the table's rows to NATS JetStream through a
// watermill-nats Publisher. -break selects what real teams get wrong:
//
//	dual-write  commit the order, then publish the event straight to NATS
//	            from the request path (no outbox table, no forwarder)
//	no-msg-id   the forwarder as in green, its watermill-nats Publisher
//	            left at JetStreamConfig's defaults (TrackMsgId false), so
//	            no event carries a Nats-Msg-Id
//	new-id      no forwarder: the event is a plain watermill-sql row, and
//	            a router handler of the team's own relays each row as a
//	            new message, message.NewMessage(watermill.NewUUID(), …),
//	            so every attempt is published under a fresh Nats-Msg-Id
//
// Environment: PORT, NATS_URL, DATABASE_URL (PostgreSQL), SUBJECT (the
// events subject; default orders.events).
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	wmnats "github.com/ThreeDotsLabs/watermill-nats/v2/pkg/nats"
	wmsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/components/forwarder"
	"github.com/ThreeDotsLabs/watermill/message"
	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/nats-io/nats.go"
)

// outboxTopic is the watermill-sql topic the forwarder reads: its rows
// live in watermill_orders_outbox, its offset in
// watermill_offsets_orders_outbox.
const outboxTopic = "orders_outbox"

func main() {
	brk := flag.String("break", "", "the variant: '' (green), dual-write, no-msg-id or new-id")
	flag.Parse()
	switch *brk {
	case "", "green", "dual-write", "no-msg-id", "new-id":
	default:
		log.Fatalf("unknown -break %q", *brk)
	}
	port, dsn, url := os.Getenv("PORT"), os.Getenv("DATABASE_URL"), os.Getenv("NATS_URL")
	if port == "" || dsn == "" || url == "" {
		log.Fatal("PORT, DATABASE_URL and NATS_URL are required")
	}
	subject := os.Getenv("SUBJECT")
	if subject == "" {
		subject = "orders.events"
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *brk, port, dsn, url, subject); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, brk, port, dsn, url, subject string) error {
	logger := watermill.NewStdLogger(false, false)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := migrate(ctx, db); err != nil {
		return err
	}

	// The broker may be down when the service starts (after a crash):
	// connect in the background and buffer publishes until it is back.
	pub, err := wmnats.NewPublisher(wmnats.PublisherConfig{
		URL:         url,
		NatsOptions: []nats.Option{nats.Name("watermill-outbox"), nats.RetryOnFailedConnect(true), nats.MaxReconnects(-1)},
		Marshaler:   &wmnats.NATSMarshaler{},
		JetStream:   wmnats.JetStreamConfig{TrackMsgId: brk != "no-msg-id"},
	}, logger)
	if err != nil {
		return fmt.Errorf("nats publisher: %w", err)
	}
	defer pub.Close()

	s := &server{db: db, brk: brk, subject: subject, logger: logger, nats: pub}
	if brk != "dual-write" {
		sub, err := wmsql.NewSubscriber(wmsql.BeginnerFromStdSQL(db), wmsql.SubscriberConfig{
			SchemaAdapter:  wmsql.DefaultPostgreSQLSchema{},
			OffsetsAdapter: wmsql.DefaultPostgreSQLOffsetsAdapter{},
		}, logger)
		if err != nil {
			return fmt.Errorf("sql subscriber: %w", err)
		}
		// The outbox table exists before the first order writes to it.
		if err := sub.SubscribeInitialize(outboxTopic); err != nil {
			return fmt.Errorf("outbox schema: %w", err)
		}
		relay, err := newRelay(brk, sub, pub, subject, logger)
		if err != nil {
			return err
		}
		go func() {
			if err := relay.Run(ctx); err != nil {
				log.Printf("relay: %v", err)
			}
		}()
		defer relay.Close()
	}

	mux := http.NewServeMux()
	mux.HandleFunc("POST /orders", s.createOrder)
	mux.HandleFunc("GET /orders/count", s.countOrders)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	srv := &http.Server{Addr: "127.0.0.1:" + port, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	log.Printf("watermill-outbox (%s) on %s", cmpOr(brk, "green"), srv.Addr)
	if err := srv.ListenAndServe(); err != http.ErrServerClosed {
		return err
	}
	return nil
}

// relay runs until ctx ends or Close: a forwarder.Forwarder or a
// message.Router.
type relay interface {
	Run(ctx context.Context) error
	Close() error
}

// newRelay relays the outbox table's rows to subject: watermill's
// forwarder, which publishes each enveloped event under its own UUID, or,
// under new-id, a router handler that republishes each row's payload as
// a new message.
func newRelay(brk string, sub message.Subscriber, pub message.Publisher, subject string, logger watermill.LoggerAdapter) (relay, error) {
	if brk != "new-id" {
		fwd, err := forwarder.NewForwarder(sub, pub, logger, forwarder.Config{ForwarderTopic: outboxTopic})
		if err != nil {
			return nil, fmt.Errorf("forwarder: %w", err)
		}
		return fwd, nil
	}
	router, err := message.NewRouter(message.RouterConfig{}, logger)
	if err != nil {
		return nil, fmt.Errorf("router: %w", err)
	}
	router.AddHandler("orders_relay", outboxTopic, sub, subject, pub, func(msg *message.Message) ([]*message.Message, error) {
		return []*message.Message{message.NewMessage(watermill.NewUUID(), msg.Payload)}, nil
	})
	return router, nil
}

// migrate creates the orders table: one row per idempotency key.
func migrate(ctx context.Context, db *sql.DB) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS orders (
		id BIGSERIAL PRIMARY KEY,
		idempotency_key TEXT NOT NULL UNIQUE,
		amount BIGINT NOT NULL,
		created_at TIMESTAMPTZ NOT NULL DEFAULT now())`)
	return err
}

// server answers the order API.
type server struct {
	db      *sql.DB
	brk     string
	subject string
	logger  watermill.LoggerAdapter
	nats    message.Publisher // watermill-nats, straight to the broker
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
