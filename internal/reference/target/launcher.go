package target

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/internal/reference"
	"github.com/resilcheck/resilcheck/internal/reference/defect"
	"github.com/resilcheck/resilcheck/internal/reference/payments"
	"github.com/resilcheck/resilcheck/targets"
)

// Launcher starts the reference stack for a kind-reference spec. It starts
// the processor itself, so the harness places its dependency proxy through
// LaunchEnv.PlaceDependency, between the service and the processor.
type Launcher struct {
	Target  *targets.Target // validated and defaulted
	defects defect.Set
}

var (
	_ launch.DependencyLauncher = (*Launcher)(nil)
	_ launch.TierLauncher       = (*Launcher)(nil)
)

func newLauncher(t *targets.Target) (launch.Launcher, error) {
	set, err := defect.Parse(t.Reference.Defects...)
	if err != nil {
		return nil, fmt.Errorf("reference: %w", err)
	}
	return &Launcher{Target: t, defects: set}, nil
}

// Launched names the dependency the stack starts itself: its processor.
func (l *Launcher) Launched() []string { return []string{Processor} }

// LaunchedTiers names the tiers behind the gateway the spec declares: the
// stack starts them itself, so the harness places the hop proxy before the
// service through LaunchEnv.PlaceTier.
func (l *Launcher) LaunchedTiers() []string {
	var names []string
	for _, tr := range l.Target.Tiers[min(1, len(l.Target.Tiers)):] {
		names = append(names, tr.Name)
	}
	return names
}

// Launch starts processor, service and gateway with the spec's defects,
// store and max budget, and blocks until the face the spec certifies (the
// gateway, or the service for the gRPC face) is healthy. The service
// calls the processor through env.PlaceDependency's URL when it is set.
// Errors match launch.ErrUnhealthy when the stack did not come up.
func (l *Launcher) Launch(ctx context.Context, env launch.Env) (*launch.Running, error) {
	t := l.Target
	front := func(processorURL string) (string, error) {
		if env.PlaceDependency == nil {
			return processorURL, nil
		}
		return env.PlaceDependency(ctx, Processor, processorURL)
	}
	opts := []reference.Option{reference.WithDefects(l.defects), reference.WithStore(storeURL(t.Reference.Store)),
		reference.WithMaxBudget(t.Conventions.MaxBudget), reference.WithDependencyFront(front)}
	if env.PlaceTier != nil && len(t.Tiers) > 1 {
		opts = append(opts, reference.WithServiceFront(func(serviceURL string) (string, error) {
			return env.PlaceTier(ctx, ServiceTier, serviceURL)
		}))
	}
	if env.Seed != 0 {
		opts = append(opts, reference.WithSeed(env.Seed))
	}
	if t.Webhooks.Declared() {
		key, err := t.Webhooks.Key()
		if err != nil {
			return nil, fmt.Errorf("reference: %w", err)
		}
		opts = append(opts, reference.WithWebhookKey(key))
	}
	if w := t.WebhookSender; w.Declared() {
		key, err := w.Key()
		if err != nil {
			return nil, fmt.Errorf("reference: %w", err)
		}
		// The sender keeps its own retry policy (payments.SenderConfig's
		// defaults), which Defaults declares: the spec says what it does.
		opts = append(opts, reference.WithWebhookSender(payments.SenderConfig{URL: env.Dependencies[w.Endpoint], Key: key}))
	}
	if q := t.QueueConsumer; q.Declared() && env.Broker != "" {
		opts = append(opts, reference.WithConsumer(payments.ConsumerConfig{URL: env.Broker, Stream: q.Stream, Consumer: q.Consumer,
			DeadLetter: q.DeadLetter, MaxDeliver: q.MaxDeliver}))
	}
	if o := t.Outbox; o.Declared() && env.Broker != "" {
		opts = append(opts, reference.WithOutbox(payments.OutboxConfig{URL: env.Broker, Subject: o.Subject}))
	}
	if env.Port != 0 {
		addr := fmt.Sprintf("127.0.0.1:%d", env.Port)
		if grpcFace(t) {
			opts = append(opts, reference.WithServiceAddr(addr))
		} else {
			opts = append(opts, reference.WithGatewayAddr(addr))
		}
	}
	if env.Log != nil {
		opts = append(opts, reference.WithLogger(slog.New(slog.NewTextHandler(env.Log, nil))))
	}
	st, err := reference.Start(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", launch.ErrUnhealthy, err)
	}
	stop := func(ctx context.Context) error { return st.Close(ctx) }
	url := st.GatewayURL
	if grpcFace(t) {
		url = st.ServiceURL // the gateway speaks HTTP/1.1 alone
	}
	if err := launch.WaitHealthyOver(ctx, url+t.Service.Health, t.Service.StartupTimeout, t.Service.Protocol); err != nil {
		c, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = stop(c)
		return nil, err
	}
	return &launch.Running{
		URL:      url,
		URLs:     map[string]string{"gateway": st.GatewayURL, "service": st.ServiceURL, "processor": st.ProcessorURL},
		Defects:  l.defects.Names(),
		StopFunc: stop,
		CrashFunc: func(ctx context.Context) error {
			if err := st.Crash(ctx); err != nil {
				return fmt.Errorf("reference: %w", err)
			}
			return nil
		},
	}, nil
}

// storeURL maps the spec's store to reference.WithStore's: plain "sqlite"
// means a file in a temporary directory, which the empty URL selects.
func storeURL(s string) string {
	if s == defaultStore {
		return ""
	}
	return s
}
