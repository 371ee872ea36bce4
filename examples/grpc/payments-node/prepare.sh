#!/usr/bin/env bash
# Installs the locked npm packages server.mjs needs (the example's test runs
# this before certifying): @grpc/grpc-js, @grpc/proto-loader and
# grpc-health-check, pinned in package.json and package-lock.json.
set -euo pipefail
# npm writes node_modules/.package-lock.json last: an install cut short is
# redone, and so is one older than the lock file (a checkout that moved on).
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
