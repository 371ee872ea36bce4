#!/usr/bin/env bash
# Installs the locked npm package client.mjs needs, once (resilcheck matrix
# runs this before certifying; so does TestKy).
set -euo pipefail
# npm writes node_modules/.package-lock.json last: an install cut short is redone.
[ -f node_modules/.package-lock.json ] || npm ci --no-audit --no-fund
