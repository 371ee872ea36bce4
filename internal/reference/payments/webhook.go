package payments

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
	"github.com/resilcheck/resilcheck/internal/reference/store"
)

// maxWebhookBody bounds a delivery's body; the Standard Webhooks spec
// recommends payloads under 20 kB.
const maxWebhookBody = 64 << 10

// webhookEvent is the part of a delivered event the service acts on. An
// event whose data names an object (id) and a status reports that object's
// state as of created (Unix seconds), by which such events are ordered.
type webhookEvent struct {
	Type string `json:"type"`
	Data struct {
		Amount  int64  `json:"amount"`
		ID      string `json:"id"`
		Status  string `json:"status"`
		Created int64  `json:"created"`
	} `json:"data"`
}

// state is the object state ev reports, or nil when it reports none.
func (ev webhookEvent) state(d defect.Set) *store.ObjectState {
	if ev.Data.ID == "" || ev.Data.Status == "" {
		return nil
	}
	return &store.ObjectState{Object: ev.Data.ID, Status: ev.Data.Status, Created: ev.Data.Created,
		LastWriteWins: d.Has(defect.WebhookLastWriteWins)}
}

// handleWebhook receives a Standard Webhooks delivery: it verifies the
// signature and timestamp, then records the event's effect and its id in
// the inbox in one transaction, so a redelivered event (a lost 2xx, a
// concurrent copy) is answered 200 again without a second effect.
func (s *Server) handleWebhook(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxWebhookBody+1))
	if err != nil || len(body) > maxWebhookBody {
		writeProblem(w, http.StatusBadRequest, probInvalidBody, "Invalid webhook", "the body could not be read or is over 64 KiB")
		return
	}
	if err := verifyDelivery(s.cfg.webhookKey, r.Header, body, time.Now(), s.cfg.defects); err != nil {
		writeProblem(w, http.StatusBadRequest, probWebhookUnverified, "Webhook not verified", err.Error())
		return
	}
	var ev webhookEvent
	if err := json.Unmarshal(body, &ev); err != nil || ev.Type == "" {
		writeProblem(w, http.StatusBadRequest, probInvalidBody, "Invalid webhook", "the event must be JSON with a type")
		return
	}
	if ev.Data.Status != "" && ev.Data.Created <= 0 {
		writeProblem(w, http.StatusBadRequest, probInvalidBody, "Invalid webhook", "an event reporting a status must say when it was created (data.created, Unix seconds)")
		return
	}
	e := store.Event{ID: r.Header.Get("Webhook-Id"), Type: ev.Type, Amount: ev.Data.Amount, ReceivedAt: time.Now(), State: ev.state(s.cfg.defects)}
	if s.cfg.defects.Has(defect.WebhookAnswerFirst) {
		s.later(e)
		writeRaw(w, http.StatusOK, []byte(`{"received":true}`))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.maxBudget)
	defer cancel()
	fresh, err := s.store.Receive(ctx, e, !s.cfg.defects.Has(defect.WebhookNoDedupe))
	if err != nil {
		s.log.Warn("payments: receive webhook", "err", err)
		writeRetryable(w, http.StatusServiceUnavailable, time.Second, probStore, "Store unavailable", "the event was not recorded; deliver it again")
		return
	}
	b, _ := json.Marshal(map[string]bool{"received": true, "duplicate": !fresh})
	writeRaw(w, http.StatusOK, b)
}

// answerFirstDelay is how long the webhook-answer-first defect holds an
// accepted event in memory before it records the effect.
const answerFirstDelay = 100 * time.Millisecond

// later records e's effect answerFirstDelay from now, unless the service
// crashes first (the webhook-answer-first defect).
func (s *Server) later(e store.Event) {
	s.pendingMu.Lock()
	defer s.pendingMu.Unlock()
	if s.pending == nil {
		s.pending = map[*time.Timer]bool{}
	}
	var t *time.Timer
	t = time.AfterFunc(answerFirstDelay, func() {
		s.pendingMu.Lock()
		live := s.pending[t]
		delete(s.pending, t)
		s.pendingMu.Unlock()
		if !live {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.maxBudget)
		defer cancel()
		if _, err := s.store.Receive(ctx, e, !s.cfg.defects.Has(defect.WebhookNoDedupe)); err != nil {
			s.log.Warn("payments: record webhook later", "err", err)
		}
	})
	s.pending[t] = true
}

// dropPending forgets the effects later still holds, as a crash would.
func (s *Server) dropPending() {
	s.pendingMu.Lock()
	defer s.pendingMu.Unlock()
	for t := range s.pending {
		t.Stop()
	}
	s.pending = nil
}

// handleWebhookEffects answers how many effects event id made: the probe a
// spec reads an event's effects with.
func (s *Server) handleWebhookEffects(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.maxBudget)
	defer cancel()
	n, err := s.store.EventEffects(ctx, r.PathValue("id"))
	if err != nil {
		s.log.Warn("payments: read webhook effects", "err", err)
		writeRetryable(w, http.StatusServiceUnavailable, time.Second, probStore, "Store unavailable", "the store did not answer; retry later")
		return
	}
	b, _ := json.Marshal(map[string]int{"count": n})
	writeRaw(w, http.StatusOK, b)
}

// handleWebhookObject answers the state the events about object id left:
// the state a spec's webhooks.ordering reads.
func (s *Server) handleWebhookObject(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.maxBudget)
	defer cancel()
	st, ok, err := s.store.Object(ctx, r.PathValue("id"))
	switch {
	case err != nil:
		s.log.Warn("payments: read webhook object", "err", err)
		writeRetryable(w, http.StatusServiceUnavailable, time.Second, probStore, "Store unavailable", "the store did not answer; retry later")
		return
	case !ok:
		writeProblem(w, http.StatusNotFound, probNotFound, "No such object", "no event about this object was received")
		return
	}
	b, _ := json.Marshal(map[string]any{"id": st.Object, "status": st.Status, "created": st.Created})
	writeRaw(w, http.StatusOK, b)
}
