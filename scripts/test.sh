#!/usr/bin/env bash
# Runs every test in the repository, as CI does. The main module's tests
# and compose/engine's run side by side: compose/engine's mostly wait on
# Docker (about 50 CPU-seconds in 140 s), and one after the other the
# whole run took 16m54s on 2 cores. examples/customcheck's run last.
# Exits 1 when any of them failed.
set -uo pipefail
cd "$(dirname "$0")/.."
engine_log=$(mktemp)
trap 'rm -f "$engine_log"' EXIT
# Its output is held back and printed whole once the main module is done,
# so the two do not interleave.
go -C compose/engine test ./... >"$engine_log" 2>&1 &
engine=$!
go test -timeout 20m ./...
main=$?
wait "$engine"
engine_rc=$?
cat "$engine_log"
if [ "$main" -ne 0 ] || [ "$engine_rc" -ne 0 ]; then
  exit 1
fi
go -C examples/customcheck test ./...
