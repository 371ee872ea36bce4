#!/bin/sh
# Starts the reference stack split into two processes: the payments service
# on SERVICE_PORT and, in front of it, the gateway on GATEWAY_PORT, which
# calls the service at HOP_URL (resilcheck's hop proxy between the two
# tiers). The service calls its processor through resilcheck's dependency
# proxy.
#   usage: run.sh GATEWAY_PORT PROCESSOR_URL DATA_DIR SERVICE_PORT HOP_URL
# RESILCHECK names the resilcheck binary (default: resilcheck on PATH);
# REFERENCE_DEFECT, if set, switches that defect on in both processes.
set -eu
bin=${RESILCHECK:-resilcheck}
port=$1 processor=$2 dir=$3 service_port=$4 hop=$5
set --
[ -n "${REFERENCE_DEFECT:-}" ] && set -- --defect "$REFERENCE_DEFECT"
# The service prints "service URL" once it listens; the gateway starts only
# then, since its own /healthz would otherwise report ready too early.
ready=$dir/service.ready
mkfifo "$ready"
"$bin" reference service --addr "127.0.0.1:$service_port" \
  --processor-url "$processor" --store "sqlite:$dir/payments.db" "$@" >"$ready" &
read -r _ _ <"$ready"
exec "$bin" reference gateway --addr "127.0.0.1:$port" --service-url "$hop" "$@"
