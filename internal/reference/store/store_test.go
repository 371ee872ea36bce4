package store

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestOpen_BadURL(t *testing.T) {
	for _, url := range []string{"", "mysql://x", "sqlite", "postgres:/x", "file:/tmp/x.db", "sqlite:/tmp/a?b.db"} {
		t.Run(url, func(t *testing.T) {
			st, err := Open(context.Background(), url)
			if !errors.Is(err, ErrBadURL) {
				if st != nil {
					st.Close()
				}
				t.Fatalf("Open(%q) = %v, want ErrBadURL", url, err)
			}
		})
	}
	_, err := Open(context.Background(), "mysql://u:secret@h/db")
	if msg := err.Error(); !strings.Contains(msg, "sqlite:PATH") || !strings.Contains(msg, "postgres://") || strings.Contains(msg, "secret") {
		t.Errorf("error %q should list the accepted forms and hide the password", msg)
	}
}

func TestOpen_Memory(t *testing.T) {
	for _, url := range []string{"sqlite:", "sqlite::memory:"} {
		t.Run(url, func(t *testing.T) {
			st := mustOpen(t, url)
			rec := newRecord("t", "k", "o1", "fp", "pay_1", t0)
			if _, owned, err := st.Claim(context.Background(), rec, t0); err != nil || !owned {
				t.Fatalf("Claim = %v, %v", owned, err)
			}
			// The one pooled connection holds the database: a second
			// statement must see the first one's row.
			if _, err := st.Lookup(context.Background(), "t", "k"); err != nil {
				t.Fatalf("Lookup: %v", err)
			}
		})
	}
}

func TestStore_Claim(t *testing.T) {
	forEachBackend(t, func(t *testing.T, st Store) {
		ctx := context.Background()
		t.Run("first claim owns", func(t *testing.T) {
			tn := tenant("acme")
			rec := newRecord(tn, "k1", "o1", "fp1", "pay_1", t0)
			got, owned, err := st.Claim(ctx, rec, t0)
			if err != nil || !owned {
				t.Fatalf("Claim = %v, %v; want owned", owned, err)
			}
			want := rec
			want.State = InProgress
			want.LeaseUntil = rec.LeaseUntil.Truncate(time.Microsecond)
			want.CreatedAt = rec.CreatedAt.Truncate(time.Microsecond)
			want.ExpiresAt = rec.ExpiresAt.Truncate(time.Microsecond)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("stored\n %+v\nwant\n %+v", got, want)
			}
			if l, err := st.Lookup(ctx, tn, "k1"); err != nil || !reflect.DeepEqual(l, want) {
				t.Fatalf("Lookup = %+v, %v", l, err)
			}
		})
		t.Run("live lease is not taken over", func(t *testing.T) {
			tn := tenant("acme")
			st.Claim(ctx, newRecord(tn, "k", "o1", "fp", "pay_1", t0), t0)
			got, owned, err := st.Claim(ctx, newRecord(tn, "k", "o2", "fp", "pay_2", t0), t0.Add(9*time.Second))
			if err != nil || owned {
				t.Fatalf("Claim = %v, %v; want not owned", owned, err)
			}
			if got.State != InProgress || got.Owner != "o1" || got.PaymentID != "pay_1" {
				t.Fatalf("stored %+v; want in progress, owned by o1", got)
			}
		})
		t.Run("takeover after lease keeps payment and fingerprint", func(t *testing.T) {
			tn := tenant("acme")
			first := newRecord(tn, "k", "o1", "fp", "pay_1", t0)
			st.Claim(ctx, first, t0)
			at := t0.Add(10 * time.Second) // exactly at LeaseUntil: passed
			second := newRecord(tn, "k", "o2", "fp", "pay_2", at)
			got, owned, err := st.Claim(ctx, second, at)
			if err != nil || !owned {
				t.Fatalf("Claim = %v, %v; want owned", owned, err)
			}
			if got.Owner != "o2" || got.PaymentID != "pay_1" || got.Fingerprint != "fp" ||
				!got.LeaseUntil.Equal(second.LeaseUntil.Truncate(time.Microsecond)) ||
				!got.CreatedAt.Equal(first.CreatedAt.Truncate(time.Microsecond)) ||
				!got.ExpiresAt.Equal(first.ExpiresAt.Truncate(time.Microsecond)) {
				t.Fatalf("stored %+v; want o2 with pay_1, fp, new lease, first's times", got)
			}
			if err := st.Complete(ctx, tn, "k", "o1", Succeeded, 201, []byte("x"), nil); !errors.Is(err, ErrNotOwner) {
				t.Fatalf("Complete by former owner = %v, want ErrNotOwner", err)
			}
		})
		t.Run("takeover needs the same fingerprint", func(t *testing.T) {
			tn := tenant("acme")
			st.Claim(ctx, newRecord(tn, "k", "o1", "fp", "pay_1", t0), t0)
			at := t0.Add(time.Minute)
			got, owned, err := st.Claim(ctx, newRecord(tn, "k", "o2", "other", "pay_2", at), at)
			if err != nil || owned || got.Owner != "o1" || got.Fingerprint != "fp" {
				t.Fatalf("Claim = %+v, %v, %v; want o1's record, not owned", got, owned, err)
			}
		})
		t.Run("expired record is replaced as new", func(t *testing.T) {
			tn := tenant("acme")
			st.Claim(ctx, newRecord(tn, "k", "o1", "fp", "pay_1", t0), t0)
			if err := st.Complete(ctx, tn, "k", "o1", Succeeded, 201, []byte("old"), nil); err != nil {
				t.Fatal(err)
			}
			at := t0.Add(24 * time.Hour) // exactly at ExpiresAt: expired
			fresh := newRecord(tn, "k", "o2", "fp2", "pay_2", at)
			got, owned, err := st.Claim(ctx, fresh, at)
			if err != nil || !owned {
				t.Fatalf("Claim = %v, %v; want owned", owned, err)
			}
			if got.PaymentID != "pay_2" || got.Fingerprint != "fp2" || got.State != InProgress ||
				got.Status != 0 || got.Body != nil || !got.CreatedAt.Equal(fresh.CreatedAt.Truncate(time.Microsecond)) ||
				!got.ExpiresAt.Equal(fresh.ExpiresAt.Truncate(time.Microsecond)) {
				t.Fatalf("stored %+v; want a fresh in-progress record with pay_2", got)
			}
		})
		t.Run("zero ExpiresAt never expires", func(t *testing.T) {
			tn := tenant("acme")
			rec := newRecord(tn, "k", "o1", "fp", "pay_1", t0)
			rec.ExpiresAt = time.Time{}
			st.Claim(ctx, rec, t0)
			st.Complete(ctx, tn, "k", "o1", Succeeded, 201, []byte("b"), nil)
			at := t0.Add(100 * 365 * 24 * time.Hour)
			got, owned, err := st.Claim(ctx, newRecord(tn, "k", "o2", "fp", "pay_2", at), at)
			if err != nil || owned || got.State != Succeeded || !got.ExpiresAt.IsZero() {
				t.Fatalf("Claim = %+v, %v, %v; want the completed record", got, owned, err)
			}
		})
		t.Run("completed record replays byte for byte", func(t *testing.T) {
			tn := tenant("acme")
			body := []byte("{\"id\":\"pay_1\"}\x00\xff\xfe\n")
			st.Claim(ctx, newRecord(tn, "k", "o1", "fp", "pay_1", t0), t0)
			if err := st.Complete(ctx, tn, "k", "o1", Failed, 402, body, nil); err != nil {
				t.Fatal(err)
			}
			at := t0.Add(time.Hour)
			got, owned, err := st.Claim(ctx, newRecord(tn, "k", "o2", "fp", "pay_2", at), at)
			if err != nil || owned {
				t.Fatalf("Claim = %v, %v; want not owned", owned, err)
			}
			if got.State != Failed || got.Status != 402 || !bytes.Equal(got.Body, body) || got.PaymentID != "pay_1" {
				t.Fatalf("stored %+v; want failed 402 with the body", got)
			}
		})
		t.Run("release allows takeover at once", func(t *testing.T) {
			tn := tenant("acme")
			st.Claim(ctx, newRecord(tn, "k", "o1", "fp", "pay_1", t0), t0)
			if err := st.Release(ctx, tn, "k", "o1"); err != nil {
				t.Fatal(err)
			}
			at := t0.Add(time.Millisecond) // long before the 10 s lease
			got, owned, err := st.Claim(ctx, newRecord(tn, "k", "o2", "fp", "pay_2", at), at)
			if err != nil || !owned || got.PaymentID != "pay_1" || got.Owner != "o2" {
				t.Fatalf("Claim = %+v, %v, %v; want takeover by o2 with pay_1", got, owned, err)
			}
		})
		t.Run("tenants are scoped", func(t *testing.T) {
			a, b := tenant("a"), tenant("b")
			ra, oa, err := st.Claim(ctx, newRecord(a, "same", "o1", "fp", "pay_a", t0), t0)
			if err != nil || !oa {
				t.Fatalf("Claim a = %v, %v", oa, err)
			}
			rb, ob, err := st.Claim(ctx, newRecord(b, "same", "o2", "fp", "pay_b", t0), t0)
			if err != nil || !ob || ra.PaymentID == rb.PaymentID {
				t.Fatalf("Claim b = %+v, %v, %v; want its own record", rb, ob, err)
			}
		})
	})
}

func TestStore_Complete(t *testing.T) {
	forEachBackend(t, func(t *testing.T, st Store) {
		ctx := context.Background()
		tn := tenant("acme")
		st.Claim(ctx, newRecord(tn, "k", "o1", "fp", "pay_1", t0), t0)
		p := &Payment{ID: "pay_1", Tenant: tn, Key: "k", Amount: 1234, Currency: "EUR", ChargeID: "ch_1", Status: "succeeded", CreatedAt: t0}

		if err := st.Complete(ctx, tn, "k", "intruder", Succeeded, 201, []byte("x"), p); !errors.Is(err, ErrNotOwner) {
			t.Fatalf("Complete by non-owner = %v, want ErrNotOwner", err)
		}
		if _, err := st.Payment(ctx, tn, "pay_1"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("a refused Complete inserted its payment: %v", err)
		}
		if err := st.Complete(ctx, tn, "k", "o1", InProgress, 0, nil, nil); err == nil || errors.Is(err, ErrNotOwner) {
			t.Fatalf("Complete with a non-final state = %v, want a validation error", err)
		}
		if err := st.Complete(ctx, tn, "missing", "o1", Succeeded, 201, nil, nil); !errors.Is(err, ErrNotOwner) {
			t.Fatalf("Complete of a missing record = %v, want ErrNotOwner", err)
		}
		if err := st.Complete(ctx, tn, "k", "o1", Succeeded, 201, []byte("body"), p); err != nil {
			t.Fatalf("Complete: %v", err)
		}
		if err := st.Complete(ctx, tn, "k", "o1", Failed, 500, []byte("again"), nil); !errors.Is(err, ErrNotOwner) {
			t.Fatalf("second Complete = %v, want ErrNotOwner", err)
		}
		if err := st.Release(ctx, tn, "k", "o1"); !errors.Is(err, ErrNotOwner) {
			t.Fatalf("Release of a completed record = %v, want ErrNotOwner", err)
		}
		rec, err := st.Lookup(ctx, tn, "k")
		if err != nil || rec.State != Succeeded || rec.Status != 201 || string(rec.Body) != "body" {
			t.Fatalf("Lookup = %+v, %v", rec, err)
		}
		got, err := st.Payment(ctx, tn, "pay_1")
		if err != nil || got != *p {
			t.Fatalf("Payment = %+v, %v; want %+v", got, err, *p)
		}
	})
}

func TestStore_Release(t *testing.T) {
	forEachBackend(t, func(t *testing.T, st Store) {
		ctx := context.Background()
		tn := tenant("acme")
		if err := st.Release(ctx, tn, "k", "o1"); !errors.Is(err, ErrNotOwner) {
			t.Fatalf("Release of a missing record = %v, want ErrNotOwner", err)
		}
		st.Claim(ctx, newRecord(tn, "k", "o1", "fp", "pay_1", t0), t0)
		if err := st.Release(ctx, tn, "k", "o2"); !errors.Is(err, ErrNotOwner) {
			t.Fatalf("Release by non-owner = %v, want ErrNotOwner", err)
		}
		if err := st.Release(ctx, tn, "k", "o1"); err != nil {
			t.Fatalf("Release: %v", err)
		}
		rec, err := st.Lookup(ctx, tn, "k")
		if err != nil || !rec.LeaseUntil.IsZero() || rec.Owner != "o1" || rec.State != InProgress {
			t.Fatalf("Lookup = %+v, %v; want o1's record with a zero lease", rec, err)
		}
	})
}

func TestStore_Lookup(t *testing.T) {
	forEachBackend(t, func(t *testing.T, st Store) {
		ctx := context.Background()
		tn := tenant("acme")
		if _, err := st.Lookup(ctx, tn, "k"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Lookup of a missing record = %v, want ErrNotFound", err)
		}
		st.Claim(ctx, newRecord(tn, "k", "o1", "fp", "pay_1", t0), t0)
		if _, err := st.Lookup(ctx, tenant("other"), "k"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Lookup in another tenant = %v, want ErrNotFound", err)
		}
	})
}

func TestStore_Payment(t *testing.T) {
	forEachBackend(t, func(t *testing.T, st Store) {
		ctx := context.Background()
		tn, other := tenant("acme"), tenant("other")
		st.Claim(ctx, newRecord(tn, "k", "o1", "fp", "pay_1", t0), t0)
		p := Payment{ID: "pay_1", Tenant: tn, Key: "k", Amount: 402, Currency: "USD", ChargeID: "", Status: "declined",
			CreatedAt: time.Date(2026, 3, 1, 12, 0, 0, 999_999_999, time.UTC)}
		if err := st.Complete(ctx, tn, "k", "o1", Failed, 402, []byte("declined"), &p); err != nil {
			t.Fatal(err)
		}
		want := p
		want.CreatedAt = p.CreatedAt.Truncate(time.Microsecond)
		if got, err := st.Payment(ctx, tn, "pay_1"); err != nil || got != want {
			t.Fatalf("Payment = %+v, %v; want %+v", got, err, want)
		}
		if _, err := st.Payment(ctx, other, "pay_1"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Payment from another tenant = %v, want ErrNotFound", err)
		}
		if _, err := st.Payment(ctx, tn, "pay_missing"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Payment of an unknown id = %v, want ErrNotFound", err)
		}
	})
}

func TestStore_Put(t *testing.T) {
	forEachBackend(t, func(t *testing.T, st Store) {
		ctx := context.Background()
		tn := tenant("acme")
		st.Claim(ctx, newRecord(tn, "k", "o1", "fp", "pay_1", t0), t0)
		// Put ignores the live lease and the owner: last writer wins.
		rec := Record{Tenant: tn, Key: "k", Fingerprint: "fp2", PaymentID: "pay_2", State: Succeeded, Owner: "o2",
			Status: 201, Body: []byte("put"), CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
		p := &Payment{ID: "pay_2", Tenant: tn, Key: "k", Amount: 1, Currency: "EUR", ChargeID: "ch_2", Status: "succeeded", CreatedAt: t0}
		if err := st.Put(ctx, rec, p); err != nil {
			t.Fatalf("Put: %v", err)
		}
		got, err := st.Lookup(ctx, tn, "k")
		if err != nil || !reflect.DeepEqual(got, rec) {
			t.Fatalf("Lookup = %+v, %v; want %+v", got, err, rec)
		}
		if _, err := st.Payment(ctx, tn, "pay_2"); err != nil {
			t.Fatalf("Payment after Put: %v", err)
		}
		rec.Body, rec.Owner = []byte("second"), "o3"
		if err := st.Put(ctx, rec, p); err != nil {
			t.Fatalf("second Put: %v", err)
		}
		if got, _ := st.Lookup(ctx, tn, "k"); string(got.Body) != "second" || got.Owner != "o3" {
			t.Fatalf("after second Put: %+v", got)
		}
		// A new key works too (insert path).
		rec.Key = "fresh"
		if err := st.Put(ctx, rec, nil); err != nil {
			t.Fatalf("Put new key: %v", err)
		}
	})
}
