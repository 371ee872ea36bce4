"""One call through urllib3's Retry, configured as its docs describe.

usage: client.py METHOD URL header=KEY_HEADER key=KEY body=BODY
(KEY and BODY may be empty). Exit 0 on a 2xx, 1 otherwise.
"""
import sys

import urllib3
from urllib3.util import Retry, Timeout

method, url = sys.argv[1:3]
opts = dict(arg.split("=", 1) for arg in sys.argv[3:])
key_header, key, body = opts["header"], opts["key"], opts["body"]
retry = Retry(
    total=3,  # 4 attempts
    backoff_factor=0.5,
    status_forcelist=[429, 503],
    raise_on_status=True,  # MaxRetryError once retries run out on a status
)
http = urllib3.PoolManager(retries=retry, timeout=Timeout(connect=2, read=2))
headers = {key_header: key} if key else {}
try:
    resp = http.request(method, url, headers=headers, body=body.encode() or None)
except urllib3.exceptions.HTTPError as e:
    print(f"failed: {e}", file=sys.stderr)
    sys.exit(1)
if not 200 <= resp.status < 300:
    print(f"status {resp.status}", file=sys.stderr)
    sys.exit(1)
