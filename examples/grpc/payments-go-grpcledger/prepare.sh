#!/usr/bin/env bash
# Builds payments-go (its own module, grpc-go pinned in its go.mod) into
# this directory: the service is payments-go's, called with
# -ledger-protocol grpc. The example's test runs this before certifying,
# and runs the binary in place of target.yaml's `go run .`.
set -euo pipefail
here=$(pwd)
cd ../payments-go
CGO_ENABLED=0 go build -o "$here/payments-grpc" .
