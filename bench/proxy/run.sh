#!/bin/sh
# Measures the fault proxy's pass-through cost against a direct connection
# and against toxiproxy v2.12.0, built into a temporary directory that is
# removed afterwards. Extra arguments go to the benchmark (-d, -rounds, -work).
# Usage: bench/proxy/run.sh [-d 3s] [-rounds 3] [-work 0]
set -eu
cd "$(dirname "$0")/../.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
toxi=""
if GOBIN="$bin" go install github.com/Shopify/toxiproxy/v2/cmd/server@v2.12.0; then
	toxi="$bin/server"
else
	echo "toxiproxy v2.12.0 could not be built; measuring without it" >&2
fi
go build -o "$bin/resilcheck" ./cmd/resilcheck
go run -tags bench ./bench/proxy -resilcheck "$bin/resilcheck" ${toxi:+-toxiproxy "$toxi"} "$@"
