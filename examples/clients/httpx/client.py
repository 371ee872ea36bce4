"""One call with httpx, its transport configured to retry (retries=3).

usage: client.py METHOD URL header=KEY_HEADER key=KEY body=BODY
(KEY and BODY may be empty). Exit 0 on a 2xx, 1 otherwise.
"""
import sys

import httpx

method, url = sys.argv[1:3]
opts = dict(arg.split("=", 1) for arg in sys.argv[3:])
key_header, key, body = opts["header"], opts["key"], opts["body"]
headers = {key_header: key} if key else {}
with httpx.Client(transport=httpx.HTTPTransport(retries=3), timeout=2) as client:
    try:
        resp = client.request(method, url, headers=headers, content=body.encode() or None)
    except httpx.HTTPError as e:
        print(f"failed: {e!r}", file=sys.stderr)
        sys.exit(1)
if not resp.is_success:
    print(f"status {resp.status_code}", file=sys.stderr)
    sys.exit(1)
