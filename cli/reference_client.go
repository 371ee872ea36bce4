package cli

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/resilcheck/resilcheck/internal/reference/client"
	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

// errCallFailed is a reference SDK call that ended in failure: the client
// reports it with exit 1, as a client target's command must.
var errCallFailed = errors.New("the call failed")

type referenceClientOpts struct {
	base, method, key, seedFrom string
	backoff, backoffCap         time.Duration
	hedgeDelay                  time.Duration
	hedgeCopies                 int
	defects                     []string
}

// newReferenceClientCmd makes one call through the reference SDK, so the
// client suite can certify the SDK as a command (kind: client).
func newReferenceClientCmd() *cobra.Command {
	o := &referenceClientOpts{}
	cmd := &cobra.Command{
		Use:   "client",
		Short: "Make one call through the reference SDK (internal/reference/client): exit 0 on success, 1 on failure",
		Long: `Make one call through the reference stack's Go SDK, with its retries: POST creates a
payment (the SDK's own body, the key given or a fresh one), GET reads payment p-1. It exits 0
when the call succeeded and 1 when it failed, so a kind client spec can certify the SDK
(examples/clients/reference-sdk/target.yaml). --defect switches on the SDK's own defects
(see 'resilcheck reference defects', component client).`,
		Example: "  resilcheck reference client --base http://127.0.0.1:8080 --method POST --key order-1",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			set, err := defect.ParseClient(o.defects...)
			if err != nil {
				return err
			}
			opts := []client.Option{client.WithDefects(set)}
			if o.backoff > 0 || o.backoffCap > 0 {
				base := cmp.Or(o.backoff, client.DefaultBase)
				opts = append(opts, client.WithBackoff(base, max(base, cmp.Or(o.backoffCap, client.DefaultCap))))
			}
			switch {
			case o.hedgeDelay < 0:
				return usagef("--hedge-delay %s: want a positive delay, or 0 for no hedging", o.hedgeDelay)
			case o.hedgeDelay > 0 && o.hedgeCopies < 2:
				return usagef("--hedge-copies %d: want at least 2 (the first copy counts)", o.hedgeCopies)
			case o.hedgeDelay > 0:
				opts = append(opts, client.WithHedging(o.hedgeDelay, o.hedgeCopies))
			}
			if o.seedFrom != "" {
				opts = append(opts, client.WithSeedFrom(o.seedFrom))
			}
			sdk, err := client.New(o.base, opts...)
			if err != nil {
				return usagef("--base: %v", err)
			}
			switch o.method {
			case http.MethodPost:
				_, err = sdk.CreatePayment(cmd.Context(), client.PaymentRequest{Amount: 100, Currency: "EUR", Key: o.key})
			case http.MethodGet:
				_, err = sdk.GetPayment(cmd.Context(), "p-1")
			default:
				return usagef("--method %q: want GET or POST", o.method)
			}
			if err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), err)
				return fmt.Errorf("%w: %w", errCallFailed, err)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.base, "base", "", "the gateway's base URL (required)")
	f.StringVar(&o.method, "method", http.MethodPost, "POST (create a payment) or GET (read one)")
	f.StringVar(&o.key, "key", "", "the idempotency key of a POST; empty: the SDK draws one")
	f.DurationVar(&o.backoff, "backoff-base", 0, "the full-jitter backoff's base (default the SDK's 100ms)")
	f.DurationVar(&o.backoffCap, "backoff-cap", 0, "the full-jitter backoff's cap, at least the base (default the SDK's 2s)")
	f.DurationVar(&o.hedgeDelay, "hedge-delay", 0, "hedge: copy an attempt still outstanding after this long (default 0: no hedging)")
	f.IntVar(&o.hedgeCopies, "hedge-copies", 2, "with --hedge-delay, the copies of an attempt at most, the first included")
	f.StringVar(&o.seedFrom, "seed-from", "", "seed the jitter from a hash of this text (e.g. {{.Scenario}}: each instance its own seed, the same every run); default random")
	f.StringArrayVar(&o.defects, "defect", nil, "switch an SDK defect on (repeatable)")
	_ = cmd.MarkFlagRequired("base")
	return cmd
}
