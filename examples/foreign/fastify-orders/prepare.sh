#!/usr/bin/env bash
# Installs the locked npm packages server.js needs, once (resilcheck matrix
# runs this before certifying; so does the zoo test).
set -euo pipefail
[ -d node_modules ] || npm ci --no-audit --no-fund
