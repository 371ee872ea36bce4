#!/bin/sh
# Starts the reference stack split into two processes: the payments service
# on a free port and, in front of it, the gateway on the port resilcheck
# chose. The service calls its processor through resilcheck's dependency proxy.
#   usage: run.sh GATEWAY_PORT PROCESSOR_URL DATA_DIR
# RESILCHECK names the resilcheck binary (default: resilcheck on PATH);
# REFERENCE_DEFECT, if set, switches that defect on in both processes.
set -eu
bin=${RESILCHECK:-resilcheck}
port=$1 processor=$2 dir=$3
set --
[ -n "${REFERENCE_DEFECT:-}" ] && set -- --defect "$REFERENCE_DEFECT"
# The service prints "service URL" once it listens; the gateway starts only
# then, since its own /healthz would otherwise report ready too early.
ready=$dir/service.ready
mkfifo "$ready"
"$bin" reference service --addr 127.0.0.1:0 \
  --processor-url "$processor" --store "sqlite:$dir/payments.db" "$@" >"$ready" &
read -r _ service_url <"$ready"
exec "$bin" reference gateway --addr "127.0.0.1:$port" --service-url "$service_url" "$@"
