#!/bin/sh
# httpd-proxy's run.sh with this directory's httpd.conf.in: Apache httpd in
# front of the reference payments service, showing its own error pages for
# the service's errors (ProxyErrorOverride On).
#   usage: run.sh PORT PROCESSOR_URL DATA_DIR SERVICE_PORT HOP_URL
here=$(cd "$(dirname "$0")" && pwd)
HTTPD_CONF_IN=$here/httpd.conf.in exec "$here/../httpd-proxy/run.sh" "$@"
