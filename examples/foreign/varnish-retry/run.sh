#!/bin/sh
# varnish-pass's run.sh with this directory's varnish.vcl.in: Varnish in
# front of the reference payments service, retrying failed fetches and the
# service's 503s.
#   usage: run.sh PORT PROCESSOR_URL DATA_DIR SERVICE_PORT HOP_URL
here=$(cd "$(dirname "$0")" && pwd)
VARNISH_VCL_IN=$here/varnish.vcl.in exec "$here/../varnish-pass/run.sh" "$@"
