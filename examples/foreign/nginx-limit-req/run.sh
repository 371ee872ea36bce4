#!/bin/sh
# Starts the reference payments service on SERVICE_PORT and nginx in front of
# it on PORT, with limit_req on POST /v1/payments only (nginx.conf.in). nginx
# calls the service at HOP_URL, resilcheck's hop proxy between the two tiers;
# the service calls its processor through resilcheck's dependency proxy.
#   usage: run.sh PORT PROCESSOR_URL DATA_DIR SERVICE_PORT HOP_URL
# RESILCHECK names the resilcheck binary (default: resilcheck on PATH);
# NGINX the nginx binary (default: nginx on PATH, else /usr/sbin/nginx).
set -eu
nginx=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
port=$1 processor=$2 dir=$3 service_port=$4 hop=$5
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../payments.sh"
start_payments "$service_port" "$processor" "$dir"
mkdir -p "$dir/nginx"
sed -e "s|@PORT@|$port|g" -e "s|@SERVICE_HOSTPORT@|${hop#http://}|g" -e "s|@DIR@|$dir/nginx|g" \
  "$here/nginx.conf.in" >"$dir/nginx/nginx.conf"
exec "$nginx" -p "$dir/nginx" -c "$dir/nginx/nginx.conf" -g 'daemon off;'
