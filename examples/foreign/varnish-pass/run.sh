#!/bin/sh
# Starts the reference payments service on SERVICE_PORT and Varnish in front
# of it on PORT with varnish.vcl.in. Varnish's backend is HOP_URL,
# resilcheck's hop proxy between the two tiers; the service calls its
# processor through resilcheck's dependency proxy.
#   usage: run.sh PORT PROCESSOR_URL DATA_DIR SERVICE_PORT HOP_URL
# RESILCHECK names the resilcheck binary (default: resilcheck on PATH);
# VARNISHD the varnishd binary (default: varnishd on PATH, else
# /usr/sbin/varnishd). varnishd compiles the VCL with the C compiler it was
# built with (gcc on Debian), runs in the foreground (-F) and, with -j none,
# as whoever starts it, root included, with its working directory (-n) under
# DATA_DIR. One worker pool of 20 threads and a 16 MB log keep each copy
# small; neither changes what Varnish does with a request. VARNISH_VCL_IN
# names the VCL template (default: varnish.vcl.in here).
set -eu
varnishd=${VARNISHD:-$(command -v varnishd || echo /usr/sbin/varnishd)}
port=$1 processor=$2 dir=$3 service_port=$4 hop=$5
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../payments.sh"
start_payments "$service_port" "$processor" "$dir"
hostport=${hop#http://}
hostport=${hostport%%/*}
mkdir -p "$dir/varnish"
sed -e "s|@HOST@|${hostport%:*}|g" -e "s|@PORT@|${hostport##*:}|g" \
  "${VARNISH_VCL_IN:-$here/varnish.vcl.in}" >"$dir/varnish/varnish.vcl"
exec "$varnishd" -F -j none -a "127.0.0.1:$port" -f "$dir/varnish/varnish.vcl" \
  -n "$dir/varnish/work" -s malloc,32m \
  -p thread_pools=1 -p thread_pool_min=20 -p vsl_space=16M
