package cli

import (
	"testing"
	"time"
)

func TestCertifyOpts_reproduce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		o    certifyOpts
		want string
	}{
		{"reference", certifyOpts{reference: true}, "resilcheck certify --reference"},
		{"store path", certifyOpts{reference: true, store: "sqlite:/tmp/pay.db"}, "resilcheck certify --reference --store sqlite:/tmp/pay.db"},
		{"postgres URL", certifyOpts{reference: true, store: "postgres://pay:s3cret@127.0.0.1:5432/pay?sslmode=disable"},
			"resilcheck certify --reference --store 'postgres://pay:xxxxx@127.0.0.1:5432/pay?sslmode=disable'"},
		{"key=value DSN", certifyOpts{reference: true, store: "host=127.0.0.1 user=pay password=s3cret dbname=pay"},
			"resilcheck certify --reference --store 'host=127.0.0.1 user=pay password=xxxxx dbname=pay'"},
		{"spec with a space", certifyOpts{file: "my specs/target.yaml", suites: []string{"deadlines"}},
			"resilcheck certify -f 'my specs/target.yaml' --suite deadlines"},
		{"explore", certifyOpts{reference: true, explore: 2 * time.Minute}, "resilcheck certify --reference --explore 2m0s"},
		{"explore cases", certifyOpts{reference: true, cases: 7}, "resilcheck certify --reference --explore-cases 7"},
		{"serial", certifyOpts{reference: true, serial: true}, "resilcheck certify --reference --serial"},
		{"grpc face", certifyOpts{reference: true, defects: []string{"no-jitter"}, face: "grpc"}, "resilcheck certify --reference --defect no-jitter --face grpc"},
		{"copies", certifyOpts{file: "t.yaml", copies: 3}, "resilcheck certify -f t.yaml --concurrency 3"},
	}
	for _, tt := range tests {
		if got := tt.o.reproduce(); got != tt.want {
			t.Errorf("%s: %s\nwant %s", tt.name, got, tt.want)
		}
	}
}
