#!/usr/bin/env bash
# Builds the client into .bin/ (git ignores it), once before resilcheck
# matrix certifies it: a prebuilt binary starts in milliseconds, where
# `go run` would compile in every scenario's start-up.
set -euo pipefail
go build -o .bin/failsafehttp .
