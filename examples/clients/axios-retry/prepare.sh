#!/usr/bin/env bash
# Installs the locked npm packages client.mjs needs, once (resilcheck matrix
# runs this before certifying; so does TestAxiosRetry).
set -euo pipefail
[ -d node_modules ] || npm ci --no-audit --no-fund
