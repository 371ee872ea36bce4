#!/usr/bin/env bash
# Builds the service from its own module (watermill stays out of
# resilcheck's go.mod), fetching the pinned modules through the module
# proxy the first time. The example's test runs this before certifying,
# and runs the binary in place of target.yaml's `go run .`, so a crash
# restarts it at once.
set -euo pipefail
CGO_ENABLED=0 go build -o watermill-outbox .
