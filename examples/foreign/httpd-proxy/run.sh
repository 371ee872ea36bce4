#!/bin/sh
# Starts the reference payments service on SERVICE_PORT and Apache httpd in
# front of it on PORT, a reverse proxy by mod_proxy_http (httpd.conf.in).
# httpd calls the service at HOP_URL, resilcheck's hop proxy between the two
# tiers; the service calls its processor through resilcheck's dependency proxy.
#   usage: run.sh PORT PROCESSOR_URL DATA_DIR SERVICE_PORT HOP_URL
# RESILCHECK names the resilcheck binary (default: resilcheck on PATH);
# APACHE2 the httpd binary (default: apache2 or httpd on PATH, else
# /usr/sbin/apache2, Debian's apache2-bin); APACHE_MODULES its modules
# directory (default: Debian's /usr/lib/apache2/modules, else Fedora's);
# HTTPD_CONF_IN the configuration template (default: httpd.conf.in here).
set -eu
httpd=${APACHE2:-$(command -v apache2 || command -v httpd || echo /usr/sbin/apache2)}
modules=${APACHE_MODULES:-}
if [ -z "$modules" ]; then
  for m in /usr/lib/apache2/modules /usr/lib64/httpd/modules /usr/lib/httpd/modules; do
    if [ -f "$m/mod_proxy.so" ]; then modules=$m; break; fi
  done
fi
port=$1 processor=$2 dir=$3 service_port=$4 hop=$5
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../payments.sh"
start_payments "$service_port" "$processor" "$dir"
# httpd started as root serves from children that switch to User and Group;
# as anyone else it stays who it is and takes no such directives.
user="# User: not started as root" group="# Group: not started as root"
if [ "$(id -u)" = 0 ]; then
  user="User nobody" group="Group #$(id -g nobody)"
fi
mkdir -p "$dir/httpd"
sed -e "s|@PORT@|$port|g" -e "s|@HOP@|$hop|g" -e "s|@DIR@|$dir/httpd|g" \
  -e "s|@MODULES@|$modules|g" -e "s|@USER@|$user|" -e "s|@GROUP@|$group|" \
  "${HTTPD_CONF_IN:-$here/httpd.conf.in}" >"$dir/httpd/httpd.conf"
exec "$httpd" -d "$dir/httpd" -f "$dir/httpd/httpd.conf" -DFOREGROUND
