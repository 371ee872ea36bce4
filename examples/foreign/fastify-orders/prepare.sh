#!/usr/bin/env bash
# Installs the locked npm packages server.js needs, once (resilcheck matrix
# runs this before certifying; so does the zoo test).
set -euo pipefail
# npm writes node_modules/.package-lock.json last: an install cut short is redone.
[ -f node_modules/.package-lock.json ] || npm ci --no-audit --no-fund
