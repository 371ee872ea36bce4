#!/bin/sh
# Starts payments-go (../payments-go, built here by prepare.sh) on
# SERVICE_PORT, calling its ledger at LEDGER_URL, and nginx in front of it
# on PORT (nginx.conf.in). nginx calls the service at HOP_URL, resilcheck's
# hop proxy between the two tiers.
#   usage: run.sh PORT LEDGER_URL DATA_DIR SERVICE_PORT HOP_URL [-break NAME]
# -break NAME is passed on to payments-go (main.go).
# PAYMENTS names the payments-go binary (default: payments-grpc beside run.sh);
# NGINX the nginx binary (default: nginx on PATH, else /usr/sbin/nginx).
set -eu
nginx=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
port=$1 ledger=$2 dir=$3 service_port=$4 hop=$5
shift 5
here=$(cd "$(dirname "$0")" && pwd)
"${PAYMENTS:-$here/payments-grpc}" -addr "127.0.0.1:$service_port" -ledger "$ledger" "$@" &
mkdir -p "$dir/nginx"
sed -e "s|@PORT@|$port|g" -e "s|@HOP@|${hop#http://}|g" -e "s|@DIR@|$dir/nginx|g" \
  "$here/nginx.conf.in" >"$dir/nginx/nginx.conf"
exec "$nginx" -p "$dir/nginx" -c "$dir/nginx/nginx.conf" -g 'daemon off;'
