#!/usr/bin/env bash
# The service is ../flask-orders/server.py: its prepare.sh checks Debian's
# packages, requests and urllib3 among them.
exec bash "$(dirname "$0")/../flask-orders/prepare.sh"
