package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// storeMachine drives a Store and a map model with random Claim, Complete,
// Release and clock steps, comparing every result and the stored records.
type storeMachine struct {
	st     Store
	tenant string
	now    time.Time
	model  map[string]Record
	owners []string
	seq    int
}

var machineKeys = []string{"a", "b", "c"}

func (m *storeMachine) Claim(t *rapid.T) {
	m.seq++
	key := rapid.SampledFrom(machineKeys).Draw(t, "key")
	rec := Record{
		Tenant:      m.tenant,
		Key:         key,
		Fingerprint: rapid.SampledFrom([]string{"f1", "f2"}).Draw(t, "fingerprint"),
		PaymentID:   fmt.Sprintf("pay_%d", m.seq),
		Owner:       fmt.Sprintf("o%d", m.seq),
		LeaseUntil:  m.now.Add(time.Duration(rapid.IntRange(0, 5000).Draw(t, "leaseMs")) * time.Millisecond),
		CreatedAt:   m.now,
	}
	if !rapid.Bool().Draw(t, "neverExpires") {
		rec.ExpiresAt = m.now.Add(time.Duration(rapid.IntRange(0, 30000).Draw(t, "expiryMs")) * time.Millisecond)
	}
	m.owners = append(m.owners, rec.Owner)

	want, wantOwned := m.model[key], false
	old, ok := m.model[key]
	switch {
	case !ok || (!old.ExpiresAt.IsZero() && !old.ExpiresAt.After(m.now)):
		want, wantOwned = rec, true
		want.State = InProgress
	case old.State == InProgress && !old.LeaseUntil.After(m.now) && old.Fingerprint == rec.Fingerprint:
		want.Owner, want.LeaseUntil, wantOwned = rec.Owner, rec.LeaseUntil, true
	}
	got, owned, err := m.st.Claim(context.Background(), rec, m.now)
	if err != nil {
		t.Fatalf("Claim: %v", err)
	}
	if owned != wantOwned || !reflect.DeepEqual(got, want) {
		t.Fatalf("Claim = %s owned=%v\nwant %s owned=%v", show(got), owned, show(want), wantOwned)
	}
	m.model[key] = want
}

func (m *storeMachine) Complete(t *rapid.T) {
	if len(m.owners) == 0 {
		t.Skip("no owner yet")
	}
	key := rapid.SampledFrom(machineKeys).Draw(t, "key")
	owner := rapid.SampledFrom(m.owners).Draw(t, "owner")
	state := rapid.SampledFrom([]State{Succeeded, Failed}).Draw(t, "state")
	status := rapid.SampledFrom([]int{201, 402, 422}).Draw(t, "status")
	body := rapid.SliceOfN(rapid.Byte(), 0, 16).Draw(t, "body")

	err := m.st.Complete(context.Background(), m.tenant, key, owner, state, status, body, nil)
	rec, ok := m.model[key]
	if ok && rec.Owner == owner && rec.State == InProgress {
		if err != nil {
			t.Fatalf("Complete by owner: %v", err)
		}
		rec.State, rec.Status, rec.Body = state, status, body
		if len(body) == 0 {
			rec.Body = nil
		}
		m.model[key] = rec
	} else if !errors.Is(err, ErrNotOwner) {
		t.Fatalf("Complete by non-owner = %v, want ErrNotOwner", err)
	}
}

func (m *storeMachine) Release(t *rapid.T) {
	if len(m.owners) == 0 {
		t.Skip("no owner yet")
	}
	key := rapid.SampledFrom(machineKeys).Draw(t, "key")
	owner := rapid.SampledFrom(m.owners).Draw(t, "owner")
	err := m.st.Release(context.Background(), m.tenant, key, owner)
	rec, ok := m.model[key]
	if ok && rec.Owner == owner && rec.State == InProgress {
		if err != nil {
			t.Fatalf("Release by owner: %v", err)
		}
		rec.LeaseUntil = time.Time{}
		m.model[key] = rec
	} else if !errors.Is(err, ErrNotOwner) {
		t.Fatalf("Release by non-owner = %v, want ErrNotOwner", err)
	}
}

func (m *storeMachine) Advance(t *rapid.T) {
	m.now = m.now.Add(time.Duration(rapid.IntRange(0, 15000).Draw(t, "ms")) * time.Millisecond)
}

// Check compares every key's stored record with the model.
func (m *storeMachine) Check(t *rapid.T) {
	for _, key := range machineKeys {
		got, err := m.st.Lookup(context.Background(), m.tenant, key)
		want, ok := m.model[key]
		switch {
		case !ok && !errors.Is(err, ErrNotFound):
			t.Fatalf("Lookup(%s) = %s, %v; want ErrNotFound", key, show(got), err)
		case ok && (err != nil || !reflect.DeepEqual(got, want)):
			t.Fatalf("Lookup(%s) = %s, %v\nwant %s", key, show(got), err, show(want))
		}
	}
}

func TestStore_StateMachine(t *testing.T) {
	forEachBackend(t, func(t *testing.T, st Store) {
		rapid.Check(t, func(t *rapid.T) {
			// A fresh tenant per case keeps cases independent on one store.
			m := &storeMachine{st: st, tenant: tenant("sm"), now: t0, model: map[string]Record{}}
			t.Repeat(rapid.StateMachineActions(m))
		})
	})
}

// show formats r without its per-case tenant: rapid shrinks a failure only
// while the message stays the same.
func show(r Record) string {
	r.Tenant = ""
	return fmt.Sprintf("%+v", r)
}
