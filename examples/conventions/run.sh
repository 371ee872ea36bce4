#!/bin/sh
# Starts the conventions service: the binary named by CONVENTIONS_BIN, or
# `go run .` from this directory. Arguments are passed on.
set -eu
if [ -n "${CONVENTIONS_BIN:-}" ]; then
  exec "$CONVENTIONS_BIN" "$@"
fi
exec go run . "$@"
