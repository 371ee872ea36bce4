package pgtest

import (
	"context"
	"fmt"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"
)

// containerImage is the PostgreSQL image used when a Docker engine answers.
const containerImage = "postgres:16-alpine"

// startContainer runs containerImage. Without a Docker engine testcontainers
// fails within milliseconds, so trying it first costs nothing locally.
func startContainer(ctx context.Context) (*server, error) {
	ctr, err := tcpostgres.Run(ctx, containerImage,
		tcpostgres.WithDatabase("postgres"),
		tcpostgres.WithUsername("resilcheck"),
		tcpostgres.WithPassword("resilcheck"),
		tcpostgres.BasicWaitStrategies(),
		testcontainers.WithCmdArgs("-c", "fsync=off", "-c", "max_connections=300"),
	)
	if err != nil {
		if ctr != nil {
			_ = testcontainers.TerminateContainer(ctr)
		}
		return nil, fmt.Errorf("run %s: %w", containerImage, err)
	}
	dsn, err := ctr.ConnectionString(ctx, "sslmode=disable")
	if err != nil {
		_ = testcontainers.TerminateContainer(ctr)
		return nil, fmt.Errorf("connection string: %w", err)
	}
	stop := once(func() {
		_ = testcontainers.TerminateContainer(ctr, testcontainers.StopTimeout(5*time.Second))
	})
	return &server{kind: "testcontainers", adminDSN: dsn, stop: stop}, nil
}
