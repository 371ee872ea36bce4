"""One call with urllib.request, retried by tenacity's @retry as teams write it.

usage: client.py METHOD URL header=KEY_HEADER key=KEY body=BODY seed=SEED
(KEY and BODY may be empty). Exit 0 on a 2xx, 1 otherwise.

SEED seeds the random module, whose random.uniform wait_random_exponential
draws from: each scenario instance keeps its own jitter, the same in every
run (as the reference SDK's --seed-from does).
"""
import random
import sys
import urllib.request
from urllib.error import HTTPError, URLError

from tenacity import (
    retry,
    retry_if_exception,
    stop_after_attempt,
    stop_after_delay,
    wait_random_exponential,
)

method, url = sys.argv[1:3]
opts = dict(arg.split("=", 1) for arg in sys.argv[3:])
key_header, key, body, seed = opts["header"], opts["key"], opts["body"], opts["seed"]
random.seed(seed)


def transient(exc: BaseException) -> bool:
    """5xx and 429 answers, and the failures of the connection itself."""
    if isinstance(exc, HTTPError):  # a URLError too: an answer, judged by status
        return exc.code == 429 or exc.code >= 500
    # urlopen wraps what fails while sending in URLError, but lets a reset or
    # a read timeout in getresponse through raw (ConnectionError, TimeoutError).
    return isinstance(exc, (URLError, ConnectionError, TimeoutError))


@retry(
    stop=stop_after_attempt(4) | stop_after_delay(10),
    wait=wait_random_exponential(multiplier=1, max=8),
    retry=retry_if_exception(transient),
    reraise=True,
)
def call() -> int:
    headers = {key_header: key} if key else {}
    req = urllib.request.Request(url, data=body.encode() or None, headers=headers, method=method)
    with urllib.request.urlopen(req, timeout=2) as resp:  # HTTPError on a non-2xx
        resp.read()
        return resp.status


try:
    status = call()
except Exception as e:  # noqa: BLE001 — any failure is the call's failure
    print(f"failed: {e!r}", file=sys.stderr)
    sys.exit(1)
if not 200 <= status < 300:
    print(f"status {status}", file=sys.stderr)
    sys.exit(1)
