package target

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/internal/reference/payments"
	"github.com/resilcheck/resilcheck/targets"
)

// TestDefaults_grpcFace: reference.face: grpc declares the gRPC face as a
// user would: the h2c service reached directly, its gRPC call compiled from
// the embedded proto, grpc-timeout as its deadline header, and none of the
// gateway's tier or limits.
func TestDefaults_grpcFace(t *testing.T) {
	t.Parallel()
	tg, err := targets.Parse("", []byte("kind: reference\nreference: {face: grpc}\n"), withKind)
	if err != nil {
		t.Fatal(err)
	}
	op := tg.Operations[0]
	checks := []struct {
		name      string
		got, want any
	}{
		{"protocol", tg.Service.Protocol, targets.ProtocolH2C},
		{"front", tg.Service.Front, targets.FrontDirect},
		{"method", op.GRPC.Method, payments.GRPCMethod},
		{"path", op.Path, payments.GRPCMethod},
		{"tiers", len(tg.Tiers), 0},
		{"profile", tg.Conventions.Profile, targets.ProfileStripe},
		{"deadline header", tg.Conventions.DeadlineHeader, targets.DeadlineGRPCTimeout},
		{"deadline headers", tg.Policy.Deadlines.Headers, []string{targets.DeadlineGRPCTimeout}},
		{"rate limited", tg.Policy.RateLimits, targets.RateLimitPolicy{}},
		{"webhooks", tg.Webhooks.Declared(), false},
		{"ledger", tg.Effects.Ledger, targets.Ledger{Dependency: Processor, KeyHeader: "Idempotency-Key"}},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %v; want %v", c.name, c.got, c.want)
		}
	}
	codec, err := op.GRPC.Compile(t.TempDir()) // the proto is embedded: no file beside any spec
	if err != nil {
		t.Fatalf("the face's operation does not compile: %v", err)
	}
	if _, err := codec.Message([]byte(`{"amount": 5, "currency": "EUR"}`)); err != nil {
		t.Errorf("the face's body is not its request message: %v", err)
	}
	before := *tg
	tg.Defaults(withKind)
	if !reflect.DeepEqual(before, *tg) {
		t.Errorf("Defaults is not idempotent:\n%+v\n%+v", before, *tg)
	}
}

func TestValidate_face(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ spec, want string }{
		{"kind: reference\nreference: {face: soap}\n", `reference.face: expected http or grpc, got "soap"`},
		{"kind: reference\nreference: {face: grpc}\ntiers: [{name: gateway}, {name: service}]\n", "tiers: the gRPC face is reached without the gateway"},
		{"kind: reference\nreference: {face: grpc}\nservice: {protocol: http/1.1}\n", "service.protocol: the gRPC face speaks h2c"},
		{"kind: reference\nservice: {protocol: h2c}\n", "service.protocol: the gateway serves HTTP/1.1"},
	} {
		if _, err := targets.Parse("", []byte(c.spec), withKind); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v; want a problem containing %q", c.spec, err, c.want)
		}
	}
}

// TestLauncher_LaunchGRPC: the gRPC face is launched at the service, not
// the gateway, and its health answers over h2c.
func TestLauncher_LaunchGRPC(t *testing.T) {
	t.Parallel()
	tg, err := targets.Parse("", []byte("kind: reference\nreference: {face: grpc}\n"), withKind)
	if err != nil {
		t.Fatal(err)
	}
	l, err := launch.Kinds{targets.KindReference: Kind()}.NewLauncher(tg)
	if err != nil {
		t.Fatal(err)
	}
	if tl := l.(launch.TierLauncher); len(tl.LaunchedTiers()) != 0 {
		t.Errorf("LaunchedTiers = %v; the gRPC face has one tier", tl.LaunchedTiers())
	}
	r, err := l.Launch(t.Context(), launch.Env{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Stop(context.Background()) })
	if r.URL != r.URLs["service"] || r.URL == r.URLs["gateway"] {
		t.Errorf("Launch returned %s; want the service's URL %s", r.URL, r.URLs["service"])
	}
	if err := launch.WaitHealthyOver(t.Context(), r.URL+tg.Service.Health, tg.Service.StartupTimeout, targets.ProtocolH2C); err != nil {
		t.Errorf("health over h2c: %v", err)
	}
}
