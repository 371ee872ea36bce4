#!/usr/bin/env bash
# Builds the service from its own module (grpc-go stays pinned in its own
# go.mod), fetching the modules through the module proxy the first time.
# The example's test runs this before certifying, and runs the binary in
# place of target.yaml's `go run .`, so startup does not wait on a compile.
set -euo pipefail
CGO_ENABLED=0 go build -o payments-grpc .
