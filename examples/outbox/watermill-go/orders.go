package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	wmsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/components/forwarder"
	"github.com/ThreeDotsLabs/watermill/message"
)

// orderCreated is the event of an order, keyed by its idempotency key.
type orderCreated struct {
	Type    string `json:"type"`
	OrderID int64  `json:"order_id"`
	Key     string `json:"key"`
	Amount  int64  `json:"amount"`
}

// createOrder stores the order under its Idempotency-Key and answers 201;
// a key seen before answers 201 with nothing stored or published again.
// The event leaves through the outbox (green, no-msg-id, new-id) or,
// under dual-write, straight to the broker once the order is committed.
func (s *server) createOrder(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	var in struct {
		Amount int64 `json:"amount"`
	}
	if key == "" || json.NewDecoder(r.Body).Decode(&in) != nil || in.Amount <= 0 {
		http.Error(w, `{"error":"an Idempotency-Key header and a positive amount are required"}`, http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		http.Error(w, `{"error":"database"}`, http.StatusServiceUnavailable)
		return
	}
	defer func() { _ = tx.Rollback() }()
	var id int64
	err = tx.QueryRowContext(ctx, `INSERT INTO orders (idempotency_key, amount) VALUES ($1, $2)
		ON CONFLICT (idempotency_key) DO NOTHING RETURNING id`, key, in.Amount).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) { // a replay: the first request's order stands
		answer(w, key, in.Amount)
		return
	}
	if err != nil {
		http.Error(w, `{"error":"database"}`, http.StatusServiceUnavailable)
		return
	}
	payload, _ := json.Marshal(orderCreated{Type: "order.created", OrderID: id, Key: key, Amount: in.Amount})
	ev := message.NewMessage(watermill.NewUUID(), payload)

	if s.brk == "dual-write" {
		if err := tx.Commit(); err != nil {
			http.Error(w, `{"error":"database"}`, http.StatusServiceUnavailable)
			return
		}
		// The order is committed: a publish that fails is logged, and the
		// client still gets its order.
		if err := s.nats.Publish(s.subject, ev); err != nil {
			s.logger.Error("publish order.created", err, watermill.LogFields{"order": id})
		}
		answer(w, key, in.Amount)
		return
	}

	// The outbox: the event is a row of the order's own transaction,
	// wrapped in the forwarder's envelope, which names the NATS subject
	// (under new-id, a plain row the team's relay reads).
	sqlPub, err := wmsql.NewPublisher(wmsql.TxFromStdSQL(tx), wmsql.PublisherConfig{SchemaAdapter: wmsql.DefaultPostgreSQLSchema{}}, s.logger)
	if err != nil {
		http.Error(w, `{"error":"outbox"}`, http.StatusInternalServerError)
		return
	}
	ev.SetContext(ctx)
	if s.brk == "new-id" {
		err = sqlPub.Publish(outboxTopic, ev)
	} else {
		err = forwarder.NewPublisher(sqlPub, forwarder.PublisherConfig{ForwarderTopic: outboxTopic}).Publish(s.subject, ev)
	}
	if err != nil {
		http.Error(w, `{"error":"outbox"}`, http.StatusServiceUnavailable)
		return
	}
	if err := tx.Commit(); err != nil {
		http.Error(w, `{"error":"database"}`, http.StatusServiceUnavailable)
		return
	}
	answer(w, key, in.Amount)
}

func answer(w http.ResponseWriter, key string, amount int64) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]any{"key": key, "amount": amount, "status": "created"})
}

// countOrders answers how many orders the key has: 0 or 1, the probe
// resilcheck counts effects with.
func (s *server) countOrders(w http.ResponseWriter, r *http.Request) {
	var n int
	if err := s.db.QueryRowContext(r.Context(), `SELECT count(*) FROM orders WHERE idempotency_key = $1`, r.URL.Query().Get("key")).Scan(&n); err != nil {
		http.Error(w, `{"error":"database"}`, http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]int{"count": n})
}
