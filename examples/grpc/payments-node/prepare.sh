#!/usr/bin/env bash
# Installs the locked npm packages server.mjs needs, once (the example's test
# runs this before certifying): @grpc/grpc-js and @grpc/proto-loader, pinned
# in package.json and package-lock.json.
set -euo pipefail
# npm writes node_modules/.package-lock.json last: an install cut short is redone.
[ -f node_modules/.package-lock.json ] || npm ci --no-audit --no-fund
