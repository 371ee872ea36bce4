package reference

import (
	"context"
	"errors"

	"net/http"
	"testing"

	"github.com/resilcheck/resilcheck/internal/pgtest"
	"github.com/resilcheck/resilcheck/internal/reference/client"
	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func startStack(t testing.TB, opts ...Option) *Stack {
	t.Helper()
	st, err := Start(context.Background(), opts...)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = st.Close(context.Background()) })
	return st
}

// TestStack_clientRoundTrip drives the whole stack with the SDK: a payment is
// created once, a replay with the same key returns it, and it is readable.
func TestStack_clientRoundTrip(t *testing.T) {
	t.Parallel()
	for _, store := range []string{"sqlite", "postgres"} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			var opts []Option
			if store == "postgres" {
				opts = append(opts, WithStore(pgtest.DSN(t)))
			}
			st := startStack(t, opts...)
			c, err := client.New(st.GatewayURL, client.WithTenant("acme"), client.WithSeed(1))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			p, err := c.CreatePayment(ctx, client.PaymentRequest{Amount: 1250, Currency: "EUR", Key: "order-1"})
			if err != nil || p.Replayed {
				t.Fatalf("CreatePayment = %+v, %v; want a new payment", p, err)
			}
			again, err := c.CreatePayment(ctx, client.PaymentRequest{Amount: 1250, Currency: "EUR", Key: "order-1"})
			if err != nil || !again.Replayed || again.ID != p.ID {
				t.Fatalf("replay = %+v, %v; want the payment %s replayed", again, err, p.ID)
			}
			got, err := c.GetPayment(ctx, p.ID)
			if err != nil || got.ID != p.ID || got.Amount != 1250 {
				t.Fatalf("GetPayment = %+v, %v", got, err)
			}
			if l := st.Processor.Ledger(); l.Charges != 1 {
				t.Errorf("processor ledger has %d charges; want 1", l.Charges)
			}
			_, err = c.CreatePayment(ctx, client.PaymentRequest{Amount: 999, Currency: "EUR", Key: "order-1"})
			var se *client.StatusError
			if !errors.As(err, &se) || se.Status != http.StatusUnprocessableEntity {
				t.Errorf("a different payload under the same key = %v; want a 422 StatusError", err)
			}
		})
	}
}

// BenchmarkStack_CreatePayment measures idempotent POSTs through the gateway
// on each store against the same path with idempotency switched off (the
// no-idempotency defect skips the claim). Compare with benchstat:
//
//	go test ./reference -run '^$' -bench CreatePayment -count 6
func BenchmarkStack_CreatePayment(b *testing.B) {
	cases := []struct {
		name    string
		store   func(b *testing.B) string
		defects defect.Set
	}{
		{"sqlite", func(*testing.B) string { return "" }, nil},
		{"postgres", func(b *testing.B) string { return pgtest.DSN(b) }, nil},
		{"no-idempotency", func(*testing.B) string { return "" }, defect.Set{defect.NoIdempotency: true}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			// A generous limit: the benchmark measures the idempotency layer, not 429s.
			st := startStack(b, WithStore(c.store(b)), WithDefects(c.defects), WithRateLimit(1e6, 1e6))
			hc := &http.Client{}
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				c, err := client.New(st.GatewayURL, client.WithHTTPClient(hc), client.WithSeed(7))
				if err != nil {
					b.Error(err)
					return
				}
				for i := 0; pb.Next(); i++ {
					if _, err := c.CreatePayment(context.Background(), client.PaymentRequest{Amount: 100, Currency: "EUR"}); err != nil {
						b.Errorf("CreatePayment: %v", err)
						return
					}
				}
			})
		})
	}
}
