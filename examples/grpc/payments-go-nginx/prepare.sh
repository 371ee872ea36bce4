#!/usr/bin/env bash
# Builds payments-go (its own module, grpc-go pinned in its go.mod) into
# this directory, where run.sh starts it behind nginx. The example's test
# runs this before certifying.
set -euo pipefail
here=$(pwd)
cd ../payments-go
CGO_ENABLED=0 go build -o "$here/payments-grpc" .
