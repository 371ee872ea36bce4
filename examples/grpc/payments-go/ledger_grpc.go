package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/url"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// ledgerServiceConfig is the gRPC ledger's channel config (gRFC A6): up
// to %d attempts of CreateEntry, retried on the codes of the JSON list %s
// (UNAVAILABLE alone, correctly), after 50 ms·2ⁿ (capped at 500 ms) ±20 %
// jitter; no retry throttling.
const ledgerServiceConfig = `{"methodConfig": [{
	"name": [{"service": "ledger.v1.Ledger"}],
	"retryPolicy": {"maxAttempts": %d, "initialBackoff": "0.05s", "maxBackoff": "0.5s",
		"backoffMultiplier": 2, "retryableStatusCodes": %s}}]}`

// everyErrorCode names every gRPC status code but OK: a policy written to
// retry whatever fails.
var everyErrorCode = []string{"CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
	"ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
	"OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"}

// grpcLedger calls ledger.v1.Ledger/CreateEntry with grpc-go over h2c,
// the key as idempotency-key metadata, within 5 s or the caller's
// deadline, retried as grpcLedgerConfig says.
type grpcLedger struct {
	conn *grpc.ClientConn
	cfg  grpcLedgerConfig
}

// grpcLedgerConfig is how the ledger is called; the zero value is the
// correct one but for MaxAttempts.
type grpcLedgerConfig struct {
	// MaxAttempts is the service config's retryPolicy.maxAttempts.
	MaxAttempts int
	// RetryableCodes is its retryableStatusCodes; nil = UNAVAILABLE alone.
	RetryableCodes []string
	// KeyPerAttempt sends the key from per-RPC credentials instead, which
	// grpc-go asks anew for every attempt (http2Client.createHeaderFields),
	// numbered: a new key per retry.
	KeyPerAttempt bool
	// OwnRetries turns grpc-go's retries off and retries UNAVAILABLE in a
	// loop of its own, MaxAttempts calls 50 ms apart, blind to
	// grpc-retry-pushback-ms.
	OwnRetries bool
}

func newGRPCLedger(base string, cfg grpcLedgerConfig) (grpcLedger, error) {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return grpcLedger{}, fmt.Errorf("-ledger %q: want http://host:port, or https:// for TLS", base)
	}
	// https: TLS verified by the system's roots, which Go reads from
	// SSL_CERT_FILE where it is set (resilcheck sets it to its run's CA
	// for a dependency it serves over TLS); grpc-go then requires h2 by
	// ALPN. http: h2c with prior knowledge.
	creds := insecure.NewCredentials()
	if u.Scheme == "https" {
		creds = credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12})
	}
	retryable := cfg.RetryableCodes
	if retryable == nil {
		retryable = []string{"UNAVAILABLE"}
	}
	list, err := json.Marshal(retryable)
	if err != nil {
		return grpcLedger{}, err
	}
	retry := grpc.WithDefaultServiceConfig(fmt.Sprintf(ledgerServiceConfig, cfg.MaxAttempts, list))
	if cfg.OwnRetries {
		retry = grpc.WithDisableRetry()
	}
	conn, err := grpc.NewClient("passthrough:///"+u.Host,
		grpc.WithTransportCredentials(creds), retry,
		grpc.WithDefaultCallOptions(grpc.ForceCodec(wireCodec{})))
	if err != nil {
		return grpcLedger{}, fmt.Errorf("ledger client: %w", err)
	}
	return grpcLedger{conn: conn, cfg: cfg}, nil
}

func (l grpcLedger) charge(ctx context.Context, key string, pay *createPaymentResponse) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var opts []grpc.CallOption
	switch {
	case key != "" && l.cfg.KeyPerAttempt:
		opts = append(opts, grpc.PerRPCCredentials(&attemptKeys{key: key}))
	case key != "":
		ctx = metadata.AppendToOutgoingContext(ctx, "idempotency-key", key)
	}
	req := &createEntryRequest{Payment: pay.ID, Amount: pay.Amount, Currency: pay.Currency}
	calls := 1
	if l.cfg.OwnRetries {
		calls = l.cfg.MaxAttempts
	}
	var err error
	for i := range calls {
		if i > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		}
		err = l.conn.Invoke(ctx, "/ledger.v1.Ledger/CreateEntry", req, new(createEntryResponse), opts...)
		if status.Code(err) != codes.Unavailable || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		// Whatever failed (the ledger's own status, a reset stream, the
		// deadline), the payment may be retried: UNAVAILABLE.
		return status.Errorf(codes.Unavailable, "ledger: %s", status.Convert(err).Message())
	}
	return nil
}

// keyProblem: grpc-go refuses outgoing metadata whose value is not
// printable ASCII (internal/metadata.ValidatePair) before it sends.
func (grpcLedger) keyProblem(key string) string {
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return "the idempotency key cannot travel to the ledger as gRPC metadata: printable ASCII only"
		}
	}
	return ""
}

// attemptKeys is per-RPC credentials that send key/attempt-N as
// idempotency-key, N counting the calls grpc-go makes for one RPC: one
// per attempt.
type attemptKeys struct {
	key string
	n   atomic.Int32
}

func (a *attemptKeys) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"idempotency-key": fmt.Sprintf("%s/attempt-%d", a.key, a.n.Add(1))}, nil
}

// RequireTransportSecurity: the ledger is reached in the clear (h2c).
func (*attemptKeys) RequireTransportSecurity() bool { return false }
