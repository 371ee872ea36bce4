package payments_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bufbuild/protocompile"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
	"github.com/resilcheck/resilcheck/internal/reference/payments"
)

// grpcClient calls the gRPC face of a payments service over h2c, with
// CreatePayment's messages compiled from payments.Proto as a client would.
type grpcClient struct {
	conn   *grpc.ClientConn
	method protoreflect.MethodDescriptor
}

// startGRPC serves s over h2c, as the reference stack does, and dials it.
func startGRPC(t *testing.T, s http.Handler) (*grpcClient, string) {
	t.Helper()
	srv := httptest.NewUnstartedServer(s)
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	t.Cleanup(srv.Close)
	conn, err := grpc.NewClient(strings.TrimPrefix(srv.URL, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c := protocompile.Compiler{Resolver: &protocompile.SourceResolver{
		Accessor: func(path string) (io.ReadCloser, error) { return payments.Proto.Open(path) },
	}}
	files, err := c.Compile(context.Background(), payments.ProtoFile)
	if err != nil {
		t.Fatal(err)
	}
	d, err := files.AsResolver().FindDescriptorByName("payments.v1.Payments")
	if err != nil {
		t.Fatal(err)
	}
	return &grpcClient{conn: conn, method: d.(protoreflect.ServiceDescriptor).Methods().ByName("CreatePayment")}, srv.URL
}

// grpcAnswer is one CreatePayment's outcome.
type grpcAnswer struct {
	code    codes.Code
	msg     string
	payment *dynamicpb.Message
	header  metadata.MD
	trailer metadata.MD
}

func (a grpcAnswer) field(name string) string {
	return a.payment.Get(a.payment.Descriptor().Fields().ByName(protoreflect.Name(name))).String()
}

// create calls CreatePayment for amount and currency with key and tenant
// as metadata (empty: none) and timeout as its deadline (0: none).
func (c *grpcClient) create(t *testing.T, key, tenant string, amount int64, currency string, timeout time.Duration) grpcAnswer {
	t.Helper()
	return c.call(t, key, tenant, c.request(amount, currency), timeout)
}

// request is the CreatePaymentRequest for amount and currency.
func (c *grpcClient) request(amount int64, currency string) *dynamicpb.Message {
	req := dynamicpb.NewMessage(c.method.Input())
	req.Set(req.Descriptor().Fields().ByName("amount"), protoreflect.ValueOfInt64(amount))
	req.Set(req.Descriptor().Fields().ByName("currency"), protoreflect.ValueOfString(currency))
	return req
}

// call calls CreatePayment with req, as create does.
func (c *grpcClient) call(t *testing.T, key, tenant string, req *dynamicpb.Message, timeout time.Duration) grpcAnswer {
	t.Helper()
	ctx := context.Background()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	if key != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "idempotency-key", key)
	}
	if tenant != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "x-tenant-id", tenant)
	}
	a := grpcAnswer{payment: dynamicpb.NewMessage(c.method.Output())}
	err := c.conn.Invoke(ctx, "/payments.v1.Payments/CreatePayment", req, a.payment, grpc.Header(&a.header), grpc.Trailer(&a.trailer))
	st := status.Convert(err)
	a.code, a.msg = st.Code(), st.Message()
	return a
}

func TestServer_CreatePaymentGRPC(t *testing.T) {
	t.Parallel()
	st := openStore(t, "sqlite")
	proc, procURL := startProcessor(t)
	_, s := startServer(t, st, procURL)
	c, svcURL := startGRPC(t, s)

	first := c.create(t, "k-1", "acme", 1200, "EUR", 5*time.Second)
	if first.code != codes.OK || first.field("status") != "succeeded" || first.field("currency") != "EUR" || !strings.HasPrefix(first.field("id"), "pay_") {
		t.Fatalf("first call: %v %q, payment %v", first.code, first.msg, first.payment)
	}
	cases := []struct {
		name            string
		key, tenant     string
		amount          int64
		currency        string
		want            codes.Code
		sameID, charged bool // the answer is first's payment; a new charge reached the processor
	}{
		{name: "retry replays", key: "k-1", tenant: "acme", amount: 1200, currency: "EUR", want: codes.OK, sameID: true},
		{name: "another tenant's key is another payment", key: "k-1", tenant: "globex", amount: 1200, currency: "EUR", want: codes.OK, charged: true},
		{name: "key reused with another payload", key: "k-1", tenant: "acme", amount: 1300, currency: "EUR", want: codes.FailedPrecondition},
		{name: "no key", tenant: "acme", amount: 1200, currency: "EUR", want: codes.InvalidArgument},
		{name: "malformed key", key: "a key", tenant: "acme", amount: 1200, currency: "EUR", want: codes.InvalidArgument},
		{name: "no amount", key: "k-2", tenant: "acme", currency: "EUR", want: codes.InvalidArgument},
		{name: "bad currency", key: "k-3", tenant: "acme", amount: 5, currency: "eur", want: codes.InvalidArgument},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := proc.Ledger().Charges
			got := c.create(t, tc.key, tc.tenant, tc.amount, tc.currency, 5*time.Second)
			if got.code != tc.want {
				t.Fatalf("code %v (%q); want %v", got.code, got.msg, tc.want)
			}
			if id := got.field("id"); tc.sameID && id != first.field("id") {
				t.Errorf("payment %q; want the first call's %q", id, first.field("id"))
			}
			if n := proc.Ledger().Charges - before; n != map[bool]int{true: 1}[tc.charged] {
				t.Errorf("%d new charges at the processor; want charged=%v", n, tc.charged)
			}
			if tc.sameID && strings.Join(got.header.Get("idempotent-replayed"), "") != "true" {
				t.Errorf("a replay without idempotent-replayed: true (header %v)", got.header)
			}
		})
	}

	t.Run("one key is one payment through either face", func(t *testing.T) {
		r := pay(t, svcURL, "k-http", `{"amount": 700, "currency": "USD"}`, "X-Tenant-ID", "acme")
		before := proc.Ledger().Charges
		got := c.create(t, "k-http", "acme", 700, "USD", 5*time.Second)
		if r.status != http.StatusCreated || got.code != codes.OK || got.field("id") != r.json(t)["id"] {
			t.Errorf("HTTP %d %s, then gRPC %v %q with payment %q: want the HTTP payment replayed", r.status, r.body, got.code, got.msg, got.field("id"))
		}
		if n := proc.Ledger().Charges - before; n != 0 {
			t.Errorf("the gRPC retry charged %d more times", n)
		}
	})
}

// TestServer_CreatePaymentGRPCRefused: a request the face must refuse
// before any charge. A field payments.proto does not declare is refused
// INVALID_ARGUMENT, as the HTTP face refuses an unknown member: the
// fingerprint would not cover it, so a retry differing only there would
// replay the first payment. A message over the HTTP face's body limit
// (64 KiB) gets RESOURCE_EXHAUSTED, where grpc-go's own limit would take
// 4 MiB.
func TestServer_CreatePaymentGRPCRefused(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		unknown []byte // field 3, which no CreatePaymentRequest declares
		want    codes.Code
	}{
		{"unknown field", protowire.AppendString(protowire.AppendTag(nil, 3, protowire.BytesType), "gift"), codes.InvalidArgument},
		{"too large", protowire.AppendBytes(protowire.AppendTag(nil, 3, protowire.BytesType), make([]byte, 64<<10)), codes.ResourceExhausted},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			proc, procURL := startProcessor(t)
			_, s := startServer(t, openStore(t, "sqlite"), procURL)
			c, _ := startGRPC(t, s)
			req := c.request(100, "EUR")
			req.SetUnknown(tt.unknown)
			got := c.call(t, "k-refused", "acme", req, 5*time.Second)
			if got.code != tt.want {
				t.Errorf("code %v (%q); want %v", got.code, got.msg, tt.want)
			}
			if n := proc.Ledger().Charges; n != 0 {
				t.Errorf("%d charges; want none", n)
			}
		})
	}
}

// TestServer_CreatePaymentGRPCDependency holds the gRPC face to what the
// HTTP face does when its processor fails: UNAVAILABLE with the processor's
// wait as grpc-retry-pushback-ms, and the call's grpc-timeout forwarded as
// the processor's budget, less the time spent.
func TestServer_CreatePaymentGRPCDependency(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var budgets []string
	proc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		budgets = append(budgets, r.Header.Get("X-Request-Timeout-Ms"))
		mu.Unlock()
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(proc.Close)
	_, s := startServer(t, openStore(t, "sqlite"), proc.URL, payments.WithRetry(payments.RetryConfig{MaxAttempts: 1}))
	c, _ := startGRPC(t, s)

	got := c.create(t, "k-down", "acme", 100, "EUR", 800*time.Millisecond)
	if got.code != codes.Unavailable {
		t.Fatalf("code %v (%q); want UNAVAILABLE", got.code, got.msg)
	}
	if p := strings.Join(got.trailer.Get("grpc-retry-pushback-ms"), ""); p != "1000" {
		t.Errorf("grpc-retry-pushback-ms %q; want the processor's Retry-After, 1000", p)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(budgets) != 1 {
		t.Fatalf("%d processor calls; want 1", len(budgets))
	}
	if ms, err := strconv.Atoi(budgets[0]); err != nil || ms <= 0 || ms > 800 {
		t.Errorf("the processor was given X-Request-Timeout-Ms %q; want 1..800, what was left of the call's 800 ms", budgets[0])
	}
}

// TestServer_CreatePaymentGRPCSpentBudget: a call that arrives with
// grpc-timeout 0 is refused DEADLINE_EXCEEDED without a charge, as the HTTP
// face refuses a spent budget. Sent raw: a grpc-go client fails such a
// call itself, before sending it.
func TestServer_CreatePaymentGRPCSpentBudget(t *testing.T) {
	t.Parallel()
	proc, procURL := startProcessor(t)
	_, s := startServer(t, openStore(t, "sqlite"), procURL)
	_, svcURL := startGRPC(t, s)
	// CreatePaymentRequest{amount: 100, currency: "EUR"}, framed.
	msg := []byte{0x08, 100, 0x12, 3, 'E', 'U', 'R'}
	body := append([]byte{0, 0, 0, 0, byte(len(msg))}, msg...)
	req, err := http.NewRequest(http.MethodPost, svcURL+payments.GRPCMethod, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/grpc")
	req.Header.Set("Te", "trailers")
	req.Header.Set("Grpc-Timeout", "0m")
	req.Header.Set("Idempotency-Key", "k-late")
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	code := resp.Trailer.Get("Grpc-Status") + resp.Header.Get("Grpc-Status")
	if code != strconv.Itoa(int(codes.DeadlineExceeded)) {
		t.Errorf("grpc-status %q (HTTP %d); want DEADLINE_EXCEEDED (4)", code, resp.StatusCode)
	}
	if n := proc.Ledger().Charges; n != 0 {
		t.Errorf("%d charges; want none", n)
	}
}

// TestServer_CreatePaymentGRPCIgnoreDeadline: under grpc-ignore-deadline
// the face drives a call by the service's own maximum budget, so the
// processor is told far more than the caller's grpc-timeout left.
func TestServer_CreatePaymentGRPCIgnoreDeadline(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		defects  defect.Set
		min, max int // the budget the processor may be told, in ms
	}{
		{"correct", nil, 1, 300},
		{"grpc-ignore-deadline", defect.Set{defect.GRPCIgnoreDeadline: true}, 1500, 2000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			told := make(chan string, 8)
			proc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				told <- r.Header.Get("X-Request-Timeout-Ms")
				w.WriteHeader(http.StatusServiceUnavailable)
			}))
			t.Cleanup(proc.Close)
			_, s := startServer(t, openStore(t, "sqlite"), proc.URL, payments.WithDefects(tc.defects),
				payments.WithMaxBudget(2*time.Second), payments.WithRetry(payments.RetryConfig{MaxAttempts: 1}))
			c, _ := startGRPC(t, s)
			c.create(t, "k-budget", "acme", 100, "EUR", 300*time.Millisecond)
			select {
			case v := <-told:
				if ms, err := strconv.Atoi(v); err != nil || ms < tc.min || ms > tc.max {
					t.Errorf("the processor was told X-Request-Timeout-Ms %q; want %d..%d", v, tc.min, tc.max)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("no processor call")
			}
		})
	}
}
